import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import type { Bus, TopicHoldings } from '../shared/adapters/bus/index.ts';
import { createInMemoryBus, createKafkaBus } from '../shared/adapters/bus/index.ts';
import type { RunnableCheck } from '../shared/engines/checks/contract.ts';
import type { Config } from '../shared/runtime/config/index.ts';
import { errorMessage } from '../shared/runtime/errors/index.ts';
import { loadRegistry, selectChecks } from './check-runtime.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import type { Store } from '../shared/adapters/store/index.ts';
import { createClickHouseStore, createDuckDbStore } from '../shared/adapters/store/index.ts';

/**
 * Kafka when brokers are configured, else the in-process bus (embedded mode) with its log on disk
 * under `config.bus.dir`; `close` (a no-op for Kafka) writes the bus's offsets and closes its files;
 * `holdings` (in-process bus only) says what it holds in memory and on disk.
 */
export function createBus(config: Config, log: Logger): { bus: Bus; close: () => Promise<void>; holdings: (() => TopicHoldings[]) | null } {
  if (config.kafka) {
    const bus = createKafkaBus({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, lagIntervalMs: config.kafka.lagIntervalMs, maxRequestBytes: config.kafka.maxRequestBytes, sessionTimeoutMs: config.kafka.sessionTimeoutMs, heartbeatIntervalMs: Math.floor(config.kafka.sessionTimeoutMs / 10), log: log.child({ component: 'kafka' }) });
    return { bus: withTopicCreationRace(bus, log), close: () => Promise.resolve(), holdings: null };
  }
  const bus = createInMemoryBus({ log: log.child({ component: 'bus' }), maxRetainedRecords: config.backlogMaxRecords, maxLagMs: config.maxLagMs, durable: { dir: resolve(config.bus.dir), fsync: config.bus.fsync, segmentBytes: config.bus.segmentBytes } });
  return { bus, close: () => bus.close(), holdings: () => bus.holdings() };
}

/** The broker's answers to a topic that another client is creating at the same moment. */
const CREATION_RACE = /does not host this topic-partition|already exists/i;

/**
 * Services started together create the same topics at once (the collector and the assembler both
 * the spans topic), and Kafka may answer one of them that a topic the other is creating does not
 * exist yet ("This server does not host this topic-partition"): measured once in 20 cold starts of
 * the README's command, the assembler stopped on it. That answer is tried again, a few times with
 * backoff (by then the topic exists); any other failure is thrown at once.
 * (Its home is ensureTopics in shared/adapters/bus/kafka-bus.ts, held still while the stage kit is built on it.)
 */
export function withTopicCreationRace(bus: Bus, log: Logger): Bus {
  return {
    ...bus,
    async ensureTopics(topics) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await bus.ensureTopics(topics);
        } catch (err) {
          if (attempt >= 5 || !CREATION_RACE.test(errorMessage(err))) throw err;
          log.info({ topics, attempt, err: errorMessage(err) }, 'topics being created by another service; trying again');
          await sleep(250 * 2 ** attempt);
        }
      }
    },
  };
}

/** ClickHouse when a URL is configured, else a DuckDB file under the data dir (embedded mode). */
export function createStore(config: Config, log: Logger): Store {
  if (config.clickhouse) {
    // The global retention is also the tables' TTL on servers that have it (from 20.1; 18.16 relies on the scheduled deletes).
    return createClickHouseStore({ ...config.clickhouse, log: log.child({ component: 'clickhouse' }), ...(config.retention.days !== null ? { ttlDays: config.retention.days } : {}) });
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
