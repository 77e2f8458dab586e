import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Bus } from '../shared/bus/index.ts';
import { createInMemoryBus, createKafkaBus } from '../shared/bus/index.ts';
import type { JudgeClient } from '../shared/checks/contract.ts';
import { createCheckRegistry } from '../shared/checks/index.ts';
import type { RunnableCheck } from '../shared/checks/contract.ts';
import type { Config } from '../shared/config/index.ts';
import { createOpenAiJudgeClient } from '../shared/judge/index.ts';
import type { Logger } from '../shared/logging/index.ts';
import type { Store } from '../shared/store/index.ts';
import { createClickHouseStore, createDuckDbStore } from '../shared/store/index.ts';

/** Kafka when brokers are configured, else the in-process bus (embedded mode). */
export function createBus(config: Config, log: Logger): Bus {
  if (config.kafka) return createKafkaBus({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, log: log.child({ component: 'kafka' }) });
  return createInMemoryBus({ log: log.child({ component: 'bus' }) });
}

/** ClickHouse when a URL is configured, else a DuckDB file under the data dir (embedded mode). */
export function createStore(config: Config, log: Logger): Store {
  if (config.clickhouse) {
    return createClickHouseStore({ ...config.clickhouse, log: log.child({ component: 'clickhouse' }) });
  }
  const dir = resolve(config.dataDir);
  mkdirSync(dir, { recursive: true });
  return createDuckDbStore({ path: join(dir, 'tracecheck.duckdb'), log: log.child({ component: 'duckdb' }) });
}

export function createJudge(config: Config, log: Logger): JudgeClient | null {
  if (!config.judge) return null;
  return createOpenAiJudgeClient({ ...config.judge, log: log.child({ component: 'judge' }) });
}

/** The configured checks, resolved against the catalog; an unknown name is a configuration error. */
export function resolveChecks(names: readonly string[]): RunnableCheck[] {
  const registry = createCheckRegistry();
  const unknown = names.filter((n) => !registry.get(n));
  if (unknown.length > 0) {
    throw new Error(`TRACECHECK_CHECKS names unknown checks: ${unknown.join(', ')} (see \`tracecheck checks list\`)`);
  }
  return names.map((n) => registry.get(n)!);
}
