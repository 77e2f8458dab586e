import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../cli/commands/eval.ts';
import type { RunResult } from '../../../tools/eval/src/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli, writeSuite } from './helpers.ts';

let server: ModelServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = createModelServer({ log: createSilentLogger(), port: 0 });
  await server.start();
  env = { OPENAI_BASE_URL: `${server.url()}/v1`, TRACECHECK_JUDGE_MODEL: 'mock-judge' };
});

afterAll(async () => {
  await server.shutdown();
});

describe('uniqueness in tracecheck eval', () => {
  // Before: every try was `not_run: no other outputs in this evaluation to compare with`, a failed
  // metric, so the run exited 1.
  it('compares each output with the other outputs of its prompt variant (every reference and try)', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': 'prompts: prompts/*.yaml\noutput: out\ncache: false\nrun_id: uniq\n',
      'prompts/math.yaml': [
        'name: math',
        'model: mock-accurate',
        'prompt: "What is {a} + {b}?"',
        'n_tries: 2',
        'sweep:',
        '  temperature: [0, 1]',
        'metrics:',
        '  - uniqueness',
        '  - exact_match',
        'references:',
        '  - {id: r1, input: {a: 1, b: 1}, expected: 2}',
        '  - {id: r2, input: {a: 2, b: 2}, expected: 4}',
        '  - {id: r3, input: {a: 3, b: 3}, expected: 6}',
        '',
      ].join('\n'),
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.stderr).not.toContain('not_run');
    expect(res.code).toBe(0);
    const run = JSON.parse(readFileSync(join(dir, 'out', 'uniq', 'report.json'), 'utf8')) as RunResult;
    const tries = run.prompts[0].rows.flatMap((r) => r.tries);
    expect(tries).toHaveLength(12);
    for (const t of tries) {
      expect(t.metrics.map((m) => m.name)).toEqual(['uniqueness', 'exact_match']);
      // Two variants (temperature 0 and 1), six outputs each: five others to compare with.
      expect(t.metrics[0]).toMatchObject({ value: 5, passed: true, method: 'model' });
      expect(t.metrics[0].explanation).toMatch(/\(compared with 5 other outputs\)$/);
      expect(t.passed).toBe(true);
    }
  });
});
