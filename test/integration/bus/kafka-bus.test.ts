import { describe, expect, it } from 'vitest';
import { createKafkaBus } from '../../../shared/bus/index.ts';
import { describeBusContract } from '../../../shared/bus/testing/bus-contract-suite.ts';
import { RetriableError } from '../../../shared/errors/index.ts';
import { createSilentLogger } from '../../../shared/logging/index.ts';
import { testKafkaBrokers, uniqueName } from '../../helpers/infra.ts';

// Bounded everywhere: with the broker down, the first ensureTopics fails within seconds and every
// test fails instead of hanging.
const bounded = { connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000, clientRetries: 2, joinTimeoutMs: 30_000 };

describeBusContract('kafka', {
  create: () =>
    Promise.resolve({
      bus: createKafkaBus({
        brokers: testKafkaBrokers(),
        clientId: uniqueName('bus_test'),
        log: createSilentLogger(),
        retryBackoff: { initialDelayMs: 20, maxDelayMs: 100 },
        heartbeatIntervalMs: 1_000,
        sessionTimeoutMs: 10_000,
        ...bounded,
      }),
      close: () => Promise.resolve(),
    }),
  waitTimeoutMs: 60_000,
});

describe('kafka bus failures', () => {
  it('fails fast with a RetriableError when no broker listens', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const bus = createKafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'unreachable', log: createSilentLogger(), connectionTimeoutMs: 500, requestTimeoutMs: 1_000, clientRetries: 1 });
    const producer = bus.createProducer();
    const error: unknown = await producer.start().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RetriableError);
    expect((error as Error).message).toMatch(/^connecting a producer to 127\.0\.0\.1:1: /);
    await producer.shutdown();
  });
});
