import { createKafkaBus } from '../../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { describeWindowStageContract } from '../../../shared/kit/stage/testing/window-stage-contract-suite.ts';
import { testKafkaBrokers, uniqueName } from '../../helpers/infra.ts';

// The contract twice: records one at a time, and through the kit's batched intake (the session
// aggregator's path).
for (const batched of [false, true]) {
  describeWindowStageContract(batched ? 'kafka, records taken in batches' : 'kafka', {
    batched,
    create: () =>
      Promise.resolve({
        bus: createKafkaBus({
          brokers: testKafkaBrokers(),
          clientId: uniqueName('stage_test'),
          log: createSilentLogger(),
          retryBackoff: { initialDelayMs: 20, maxDelayMs: 100 },
          heartbeatIntervalMs: 1_000,
          sessionTimeoutMs: 10_000,
          commitIntervalMs: 200,
          connectionTimeoutMs: 2_000,
          requestTimeoutMs: 10_000,
          clientRetries: 2,
          joinTimeoutMs: 30_000,
        }),
        close: () => Promise.resolve(),
      }),
    waitTimeoutMs: 60_000,
  });
}
