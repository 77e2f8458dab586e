import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Bus, TopicHoldings } from '../shared/bus/index.ts';
import { createInMemoryBus, createKafkaBus } from '../shared/bus/index.ts';
import type { RunnableCheck } from '../shared/checks/contract.ts';
import type { Config } from '../shared/config/index.ts';
import { loadRegistry, selectChecks } from './check-runtime.ts';
import type { Logger } from '../shared/logging/index.ts';
import type { Store } from '../shared/store/index.ts';
import { createClickHouseStore, createDuckDbStore } from '../shared/store/index.ts';

/**
 * Kafka when brokers are configured, else the in-process bus (embedded mode) with its log on disk
 * under `config.bus.dir`; `close` (a no-op for Kafka) writes the bus's offsets and closes its files;
 * `holdings` (in-process bus only) says what it holds in memory and on disk.
 */
export function createBus(config: Config, log: Logger): { bus: Bus; close: () => Promise<void>; holdings: (() => TopicHoldings[]) | null } {
  if (config.kafka) {
    return { bus: createKafkaBus({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, lagIntervalMs: config.kafka.lagIntervalMs, log: log.child({ component: 'kafka' }) }), close: () => Promise.resolve(), holdings: null };
  }
  const bus = createInMemoryBus({ log: log.child({ component: 'bus' }), durable: { dir: resolve(config.bus.dir), fsync: config.bus.fsync, segmentBytes: config.bus.segmentBytes } });
  return { bus, close: () => bus.close(), holdings: () => bus.holdings() };
}

/** ClickHouse when a URL is configured, else a DuckDB file under the data dir (embedded mode). */
export function createStore(config: Config, log: Logger): Store {
  if (config.clickhouse) {
    return createClickHouseStore({ ...config.clickhouse, log: log.child({ component: 'clickhouse' }) });
  }
  const dir = resolve(config.dataDir);
  mkdirSync(dir, { recursive: true });
  return createDuckDbStore({ path: join(dir, 'tracecheck.duckdb'), log: log.child({ component: 'duckdb' }), memoryLimit: config.duckdbMemoryLimit ?? undefined });
}

/**
 * The configured checks (`TRACECHECK_CHECKS`: names, `all` or `deterministic`) from the catalog and
 * the user's definitions file; an unknown name is a configuration error.
 */
export function resolveChecks(config: Config, kind: 'trace' | 'session' = 'trace'): RunnableCheck[] {
  const spec = kind === 'trace' ? config.checks : config.sessionChecks;
  if (spec.length === 0) return [];
  const { checks, unknown } = selectChecks(loadRegistry(config.checkDefinitionsFile ?? undefined), spec.join(','));
  if (unknown.length > 0) {
    const name = kind === 'trace' ? 'TRACECHECK_CHECKS' : 'TRACECHECK_SESSION_CHECKS';
    throw new Error(`${name} names unknown checks: ${unknown.join(', ')} (see \`tracecheck checks list\`, or add them with TRACECHECK_CHECK_DEFINITIONS)`);
  }
  return checks;
}
