import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../cli/commands/eval.ts';
import type { RunResult } from '../../../tools/eval/src/index.ts';
import { createModelServer } from '../../../tools/model-server/src/index.ts';
import type { ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli } from './helpers.ts';

// examples/llmeval is written in the llmeval format as documented: defaults without extension,
// variables as a list of {name}, human/system roles, prompt: {content}, Python metric, roll-up and
// prompt code, skip: True, ntries.
const SUITE = resolve(import.meta.dirname, '../../../examples/llmeval/llmeval.yaml');
const PYTHON_BOUND_MS = 90_000;

let server: ModelServer;
let env: Record<string, string>;
let out: string;

beforeAll(async () => {
  server = createModelServer({ log: createSilentLogger(), port: 0 });
  await server.start();
  env = { OPENAI_BASE_URL: `${server.url()}/v1` };
  out = mkdtempSync(join(tmpdir(), 'tracecheck-llmeval-'));
});
afterAll(() => server.shutdown());

const report = (runId: string): RunResult => JSON.parse(readFileSync(join(out, runId, 'report.json'), 'utf8')) as RunResult;
const summary = (run: RunResult) =>
  run.prompts.map((p) => ({ prompt: p.name, nTries: p.nTries, rollup: p.rollup, rows: p.rows.map((r) => [r.reference.id, r.status, r.tries.map((t) => t.actual), r.tries.map((t) => t.metrics.map((m) => [m.name, m.value, m.passed]))]) }));

describe('an llmeval suite, unchanged, against the model server', () => {
  it('passes, fails, skips and rolls up as written; exit 1 for the failing reference', async () => {
    const res = await runCli(evalCommand, [SUITE, `output=${out}`, 'run_id=all'], env);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stdout).toContain('echo no_plain_failures: PASS (num_passes=2 num_fails=0 num_skip_passes=1 num_skip_fails=0)\nFAILED: 1 passed, 0 failed of 1 tests by their roll-up; 2 passed, 1 failed, 1 skipped of 4 references (run all)');
    const run = report('all');
    expect(summary(run)).toEqual([
      {
        prompt: 'echo', nTries: 1, rollup: 'no_plain_failures',
        rows: [
          ['1', 'pass', ['You said: hello there'], [[['echoed', true, true]]]],
          ['2', 'pass', ['You said: good morning'], [[['echoed', true, true]]]],
          // Roll-up code decides the whole test (run.prompts[0].tests); the skipped reference counts apart in num_skip_*.
          ['3', 'skip', ['You said: this one is skipped'], [[['echoed', true, true]]]],
        ],
      },
      {
        prompt: 'math', nTries: 2, rollup: 'all',
        rows: [
          ['1', 'pass', ['5', '5'], [[['correct', true, true], ['answer_length', 1, null]], [['correct', true, true], ['answer_length', 1, null]]]],
          ['2', 'fail', ['17', '17'], [[['correct', false, false], ['answer_length', 2, null]], [['correct', false, false], ['answer_length', 2, null]]]],
          ['3', 'skip', ['2', '2'], [[['correct', false, false], ['answer_length', 1, null]], [['correct', false, false], ['answer_length', 1, null]]]],
        ],
      },
      { prompt: 'multiply', nTries: 1, rollup: 'all', rows: [['1', 'pass', ['42'], [[['product', true, true]]]]] },
    ]);
    // ntries is a suite setting, never a model parameter.
    expect(run.prompts.find((p) => p.name === 'math')!.rows[0].params).toEqual({ model: 'mock-accurate' });
  }, PYTHON_BOUND_MS);

  it('takes overrides as llmeval writes them: prompts=math ntries=1', async () => {
    const res = await runCli(evalCommand, [SUITE, `output=${out}`, 'run_id=math-once', 'prompts=math', 'ntries=1'], env);
    expect(res.code, res.stderr).toBe(1);
    const run = report('math-once');
    expect(run.prompts.map((p) => [p.name, p.nTries, p.rows.map((r) => [r.reference.id, r.status, r.tries.length, r.params])])).toEqual([
      ['math', 1, [['1', 'pass', 1, { model: 'mock-accurate' }], ['2', 'fail', 1, { model: 'mock-accurate' }], ['3', 'skip', 1, { model: 'mock-accurate' }]]],
    ]);
  }, PYTHON_BOUND_MS);

  it('eval report writes the roll-up across runs to --output', async () => {
    const file = join(out, 'rollup.json');
    const res = await runCli(evalCommand, ['report', 'all', 'math-once', '--runs', out, '--output', file], env);
    expect(res.code).toBe(1);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { runs: unknown; rollup: unknown };
    expect(written.runs).toEqual([{ runId: 'all', passed: false }, { runId: 'math-once', passed: false }]);
    expect(written.rollup).toEqual([
      { prompt: 'echo', reference: '1', runs: 1, tries: 1, passes: 1, fails: 0, passRate: 1, rowsPassed: 1, rowsFailed: 0, rowsSkipped: 0 },
      { prompt: 'echo', reference: '2', runs: 1, tries: 1, passes: 1, fails: 0, passRate: 1, rowsPassed: 1, rowsFailed: 0, rowsSkipped: 0 },
      { prompt: 'echo', reference: '3', runs: 1, tries: 1, passes: 1, fails: 0, passRate: 1, rowsPassed: 0, rowsFailed: 0, rowsSkipped: 1 },
      { prompt: 'math', reference: '1', runs: 2, tries: 3, passes: 3, fails: 0, passRate: 1, rowsPassed: 2, rowsFailed: 0, rowsSkipped: 0 },
      { prompt: 'math', reference: '2', runs: 2, tries: 3, passes: 0, fails: 3, passRate: 0, rowsPassed: 0, rowsFailed: 2, rowsSkipped: 0 },
      { prompt: 'math', reference: '3', runs: 2, tries: 3, passes: 0, fails: 3, passRate: 0, rowsPassed: 0, rowsFailed: 0, rowsSkipped: 2 },
      { prompt: 'multiply', reference: '1', runs: 1, tries: 1, passes: 1, fails: 0, passRate: 1, rowsPassed: 1, rowsFailed: 0, rowsSkipped: 0 },
    ]);
    expect(res.stdout).toContain('roll-up across runs (per prompt × reference)');
  });
});
