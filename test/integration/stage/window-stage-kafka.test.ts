import { describeWindowStageContract } from '../../../shared/kit/stage/testing/window-stage-contract-suite.ts';
import { createTestKafkaBus } from '../../helpers/test-kafka-bus.ts';

// The contract twice: records one at a time, and through the kit's batched intake (the session
// aggregator's path).
for (const batched of [false, true]) {
  describeWindowStageContract(batched ? 'kafka, records taken in batches' : 'kafka', {
    batched,
    create: () =>
      Promise.resolve({
        bus: createTestKafkaBus('stage_test'),
        close: () => Promise.resolve(),
      }),
    waitTimeoutMs: 60_000,
  });
}
