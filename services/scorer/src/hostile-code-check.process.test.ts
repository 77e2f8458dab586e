import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createInMemoryBus } from '../../../shared/adapters/bus/index.ts';
import { createCodeCheck } from '../../../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createScorer } from './create-scorer.ts';

const log = createSilentLogger();

describe('scorer with a user code check that never answers', () => {
  const sandbox = createCodeSandbox({ processes: 2 });
  const store = createDuckDbStore({ path: ':memory:', log });
  afterAll(async () => {
    await store.shutdown();
    await sandbox.close();
  });

  it('scores all 20 units within 30 s: the other check passes on each, the hanging one times out 3 times, then is paused with error scores saying why', async () => {
    await store.start();
    const hang = createCodeCheck({ kind: 'code', name: 'hang', description: '', outputType: 'pass_fail', language: 'typescript', source: 'export function evaluate() { return new Promise(() => {}); }', timeoutMs: 1_500 });
    const answered = createCodeCheck({ kind: 'code', name: 'answered', description: '', outputType: 'pass_fail', language: 'typescript', source: 'export function evaluate(a: { model_output: string | null }) { return (a.model_output ?? "").length > 0; }' });
    const bus = createInMemoryBus({ log });
    const scorer = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: 'none' }, { bus, store, log, nowMs: Date.now, checks: [hang, answered], judge: null, codeRunner: sandbox });
    await scorer.start();
    const producer = bus.createProducer();
    await producer.start();
    const units = Array.from({ length: 20 }, (_, i) => createTestUnit(i));
    await producer.send('units', units.map((u) => ({ key: u.unit_id, value: JSON.stringify(u) })));
    // Before: one process ran one evaluation at a time, so each unit waited for the hanging check of
    // every unit before it (about 50 s for 20); now the paused check answers at once.
    const scores = await waitFor(async () => {
      const all = await store.queryScores({ limit: 100 });
      return all.length === 40 && all;
    }, { timeoutMs: 30_000, description: '40 scores' });
    await scorer.shutdown();
    await producer.shutdown();
    const good = scores.filter((s) => s.check === 'answered');
    expect(good.map((s) => [s.status, s.passed]).sort()).toEqual(Array.from({ length: 20 }, () => ['ok', true]));
    const errors = scores.filter((s) => s.check === 'hang').map((s) => `${s.status}: ${(s.error ?? '').replace(/paused until \S+:/, 'paused until T:')}`);
    expect(errors.filter((e) => e === 'error: timed out after 1500 ms')).toHaveLength(3);
    expect(errors.filter((e) => e === 'error: paused until T: its last 3 evaluations each cost a sandbox process (the last: timed out after 1500 ms)')).toHaveLength(17);
  }, 60_000);
});
