import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../tools/demo-agent/src/index.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// A user's own checks in the live pipeline: a code check (run in the sandbox) and a model check,
// loaded from the definitions file that `tracecheck checks upload --out` writes.
describe('user-defined checks in the embedded pipeline', () => {
  let h: Harness;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-defs-'));
    const file = join(dir, 'defs.jsonl');
    const codeCheck = {
      kind: 'code', name: 'answer_mentions_city', description: 'the final answer names a city', outputType: 'pass_fail', language: 'typescript',
      source: 'export function evaluate(args: { model_output: string | null }): boolean {\n  return /Paris|Oslo/.test(args.model_output ?? "");\n}\n',
    };
    const modelCheck = {
      kind: 'model', name: 'polite_answer', description: 'the agent answers politely', outputType: 'pass_fail',
      promptTemplate: 'Decide whether the final answer {model_output} to the dialog {message_history} is polite. Answer [[True]] or [[False]] with ((a reason)).',
    };
    writeFileSync(file, `${JSON.stringify(codeCheck)}\n${JSON.stringify(modelCheck)}\n`);
    h = await startPipeline({ TRACECHECK_CHECKS: 'answer_mentions_city,polite_answer', TRACECHECK_CHECK_DEFINITIONS: file });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('scores every unit with them', async () => {
    const { traceIds } = await runDemo({ collectorUrl: h.pipeline.collectorUrl(), modelBaseUrl: h.modelUrl });
    const deadline = Date.now() + 30_000;
    let scores: Array<{ check: string; status: string; value: number | null; method: string }> = [];
    while (Date.now() < deadline) {
      const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/units/${traceIds.healthy}`);
      if (res.status === 200) {
        scores = ((await res.json()) as { scores: typeof scores }).scores;
        if (scores.length === 2) break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const byCheck = Object.fromEntries(scores.map((s) => [s.check, [s.status, s.value, s.method]]));
    expect(byCheck).toEqual({ answer_mentions_city: ['ok', 1, 'code'], polite_answer: ['ok', 1, 'model'] });
  });
});
