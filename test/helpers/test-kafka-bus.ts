import { createKafkaBus, type Bus } from '../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { testKafkaBrokers, uniqueName } from './infra.ts';

/**
 * A Kafka bus on the shared test broker, a new client each call (as a restarted process is), with
 * short retries, heartbeats and commits and bounded client waits: a stage test's failure shows in
 * seconds, not kafkajs's minutes.
 */
export function createTestKafkaBus(clientPrefix: string): Bus {
  return createKafkaBus({
    brokers: testKafkaBrokers(),
    clientId: uniqueName(clientPrefix),
    log: createSilentLogger(),
    retryBackoff: { initialDelayMs: 20, maxDelayMs: 100 },
    heartbeatIntervalMs: 1_000,
    sessionTimeoutMs: 10_000,
    commitIntervalMs: 200,
    connectionTimeoutMs: 2_000,
    requestTimeoutMs: 10_000,
    clientRetries: 2,
    joinTimeoutMs: 30_000,
  });
}
