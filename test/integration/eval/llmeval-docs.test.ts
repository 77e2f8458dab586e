import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { evalCommand } from '../../../cli/commands/eval.ts';
import { multirunFolder, type RunResult } from '../../../tools/eval/src/index.ts';
import { createModelServer } from '../../../tools/model-server/src/index.ts';
import type { ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli, writeSuite } from './helpers.ts';

// An llmeval suite copied from llmeval's docs: llmeval.yaml with no prompts key, prompts/math.yaml
// and its references in prompts/tests/math.yaml, the majority roll-up beside a reference with
// skip: True, and a code: prompt and a metric importing a package (inflection, tiny, pure Python,
// absent from the system's Python) installed in a venv this test makes, as a user's CI would.
const FILES = {
  'llmeval.yaml': 'n_tries: 1\n',
  'prompts/math.yaml': [
    'defaults:',
    '  - tests/math',
    'name: math',
    'model: gpt-4-16k',
    'temperature: 0.0',
    'variables:',
    '  - name: a',
    '  - name: b',
    'messages:',
    '  - role: "human"',
    '    content: "What is {a} + {b}? Only return the answer without any explanation"',
    '',
  ].join('\n'),
  'prompts/tests/math.yaml': [
    'metrics:',
    '  - name: exact_match',
    '    code: |',
    '      metric = actual.strip() == str(expected)',
    '      result = metric',
    'metrics_rollup:',
    '  name: majority',
    '  code: |',
    '    result = num_passes > num_fails',
    'references:',
    '  - input:',
    '      a: 4',
    '      b: 5',
    '    expected: 9',
    '  - input:',
    '      a: 2',
    '      b: 3',
    '    expected: 5',
    '  - input:',
    '      a: 10',
    '      b: 7',
    '    expected: 18',
    '  - input:',
    '      a: 1',
    '      b: 1',
    '    expected: 3',
    '    skip: True',
    '',
  ].join('\n'),
  'prompts/greet.yaml': [
    'defaults:',
    '  - tests/greet',
    'name: greet',
    'model: gpt-4-16k',
    'variables:',
    '  - name: message',
    'code: |',
    '  import inflection',
    '  output = inflection.titleize("{message}")',
    '',
  ].join('\n'),
  'prompts/tests/greet.yaml': [
    'metrics:',
    '  - name: snake',
    '    code: |',
    '      import inflection',
    '      metric = inflection.underscore(actual.replace(" ", ""))',
    '      result = metric == expected',
    'references:',
    '  - input:',
    '      message: hello big world',
    '    expected: hello_big_world',
    '  - input:',
    "      message: it's \"quoted\"",
    '    expected: it\'s"quoted"',
    '',
  ].join('\n'),
};

const VENV_BOUND_MS = 300_000;
const RUN_BOUND_MS = 120_000;

let server: ModelServer;
let env: Record<string, string>;
let dir: string;
let venvPython: string;

beforeAll(async () => {
  server = createModelServer({ log: createSilentLogger(), port: 0 });
  await server.start();
  env = { OPENAI_BASE_URL: `${server.url()}/v1` };
  dir = writeSuite(FILES);
  const venv = mkdtempSync(join(tmpdir(), 'tracecheck-venv-'));
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'ignore' });
  venvPython = join(venv, 'bin', 'python');
  execFileSync(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', 'inflection==0.5.1'], { stdio: 'ignore' });
}, VENV_BOUND_MS);
afterAll(() => server.shutdown());

const report = (runId: string): RunResult => JSON.parse(readFileSync(join(dir, '.tracecheck/runs', runId, 'report.json'), 'utf8')) as RunResult;
const rows = (run: RunResult, prompt: string) =>
  run.prompts.find((p) => p.name === prompt)!.rows.map((r) => [r.reference.input, r.status, r.tries.map((t) => t.actual), r.tries.map((t) => t.metrics.map((m) => [m.name, m.value, m.passed, m.error ?? null]))]);

describe("an llmeval suite from llmeval's docs, unchanged", () => {
  it('loads the documented layout, rolls the majority up per test with the skipped reference apart, runs code in the venv: exit 0', async () => {
    const res = await runCli(evalCommand, [join(dir, 'llmeval.yaml'), '--python', venvPython, 'run_id=venv'], env);
    expect(res.code, res.stderr + res.stdout).toBe(0);
    const run = report('venv');
    expect(run.passed).toBe(true);
    expect(run.prompts.map((p) => p.name).sort()).toEqual(['greet', 'math']);
    expect(rows(run, 'math')).toEqual([
      [{ a: 4, b: 5 }, 'pass', ['9'], [[['exact_match', true, true, null]]]],
      [{ a: 2, b: 3 }, 'pass', ['5'], [[['exact_match', true, true, null]]]],
      [{ a: 10, b: 7 }, 'fail', ['17'], [[['exact_match', false, false, null]]]],
      [{ a: 1, b: 1 }, 'skip', ['2'], [[['exact_match', false, false, null]]]],
    ]);
    // 2 passes > 1 fail; the skipped reference's fail counts apart.
    expect(run.prompts.find((p) => p.name === 'math')!.tests).toEqual([
      { name: 'majority', params: { model: 'gpt-4-16k', temperature: 0 }, counts: { num_passes: 2, num_fails: 1, num_skip_passes: 0, num_skip_fails: 1, n_tries: 1 }, result: 'pass' },
    ]);
    expect(res.stdout).toContain('math majority: PASS (num_passes=2 num_fails=1 num_skip_passes=0 num_skip_fails=1)');
    // The roll-up decides math as a test; greet, without one, counts its references.
    expect(res.stdout).toContain('PASSED: 1 passed, 0 failed of 1 tests by their roll-up; 2 passed, 0 failed, 0 skipped of 2 references (run venv)');
    // {message} filled as data: quotes in the reference do not break (or enter) the code.
    expect(rows(run, 'greet')).toEqual([
      [{ message: 'hello big world' }, 'pass', ['Hello Big World'], [[['snake', 'hello_big_world', true, null]]]],
      [{ message: 'it\'s "quoted"' }, 'pass', ['It\'s "Quoted"'], [[['snake', 'it\'s"quoted"', true, null]]]],
    ]);
  }, RUN_BOUND_MS);

  it('writes the documented report YAML and table under multiruns/<date>/<time>/, a folder per job, as llmeval does', () => {
    const sweeps = readdirSync(join(dir, 'multiruns')).flatMap((date) => readdirSync(join(dir, 'multiruns', date)).map((time) => `${date}/${time}`));
    expect(sweeps).toContain(multirunFolder(report('venv').startedAt));
    const llmevalDir = join(dir, 'multiruns', multirunFolder(report('venv').startedAt));
    expect(readdirSync(llmevalDir).sort()).toEqual(['0', '1', 'multirun.yaml', 'report.md']);
    expect(readdirSync(join(llmevalDir, '0'))).toEqual(['report-0.yaml']);
    expect(readdirSync(join(llmevalDir, '1'))).toEqual(['report-0.yaml']);
    const files = ['0/report-0.yaml', '1/report-0.yaml'];
    const docs = files.filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(join(llmevalDir, f), 'utf8')) as { n_tries: number; prompts: { name: string; tests: { references: unknown[]; metrics_rollup?: unknown } } });
    const math = docs.find((d) => d.prompts.name === 'math')!;
    expect(math.n_tries).toBe(1);
    expect(math.prompts.tests.metrics_rollup).toEqual({ name: 'majority', code: 'result = num_passes > num_fails\n' });
    expect(math.prompts.tests.references[0]).toEqual({ input: { a: 4, b: 5 }, expected: 9, actual: '9', metrics: { exact_match: { metric: true, result: 'pass' } } });
    expect(math.prompts.tests.references[3]).toEqual({ input: { a: 1, b: 1 }, expected: 3, skip: true, actual: '2', metrics: { exact_match: { metric: false, result: 'fail', skipped: true } } });
    const table = readFileSync(join(llmevalDir, 'report.md'), 'utf8');
    expect(table).toContain('| majority | model | temperature | a | b | Expected | Actual #0 | exact_match (metric) #0 | exact_match (pass / fail) #0 |');
    expect(table).toContain('| ✅ | gpt-4-16k | 0 | `4` | `5` | `9` | `9` | True | ✅ |');
    expect(table).toContain('| ✅ | gpt-4-16k | 0 | `1` | `1` | `3` | `2` | False | 🛑 (skipping) |');
  });

  it('names the missing module when the interpreter lacks the package', async () => {
    const res = await runCli(evalCommand, [join(dir, 'llmeval.yaml'), 'prompts=greet', 'run_id=system', 'cache=false'], { ...env, LLMEVAL_PYTHON: 'python3' });
    expect(res.code).toBe(1);
    const errors = report('system').prompts[0].rows.map((r) => r.tries[0].error);
    for (const e of errors) expect(e).toMatch(/^prompt code failed: Python module 'inflection' is not installed for \S+ \(No module named 'inflection'\); install it there, or choose the interpreter with --python or LLMEVAL_PYTHON$/);
  }, RUN_BOUND_MS);
});
