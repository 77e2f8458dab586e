import { createInMemoryBus } from '../../adapters/bus/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { describeWindowStageContract } from './testing/window-stage-contract-suite.ts';

describeWindowStageContract('in-memory bus', {
  create: () => Promise.resolve({ bus: createInMemoryBus({ log: createSilentLogger(), recommitMs: 20, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } }), close: () => Promise.resolve() }),
  waitTimeoutMs: 5_000,
});

describeWindowStageContract('in-memory bus, records taken in batches', {
  create: () => Promise.resolve({ bus: createInMemoryBus({ log: createSilentLogger(), recommitMs: 20, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } }), close: () => Promise.resolve() }),
  waitTimeoutMs: 5_000,
  batched: true,
});
