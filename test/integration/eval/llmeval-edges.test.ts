import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../../tools/eval/src/index.ts';
import { runCommand } from '../../helpers/cli.ts';
import { writeSuite } from './helpers.ts';

const DEV_BIN = resolve(import.meta.dirname, '../../../bin/tracecheck-dev.mjs');
const RUN_BOUND_MS = 120_000;

// llmeval's own llmeval.yaml as `llmeval init` writes it (Hydra's defaults list, version and hydra:
// section), a code: prompt that concatenates its variables, a reference without expected under a
// metric that reads expected, and a custom roll-up.
const FILES = {
  'llmeval.yaml': [
    'defaults:',
    '  - prompts: ???',
    '  - _self_',
    '',
    'version: 0.1.0',
    'n_tries: 1',
    '',
    'hydra:',
    '  job:',
    '    chdir: True',
    '  mode: MULTIRUN',
    '  sweeper:',
    '    params:',
    '      prompts: glob(*)',
    '',
  ].join('\n'),
  'prompts/concat.yaml': ['defaults:', '  - tests/concat', 'name: concat', 'model: gpt-4', 'variables:', '  - name: a', '  - name: b', 'code: |', '  output = a + b + " " + type(a).__name__', ''].join('\n'),
  'prompts/tests/concat.yaml': [
    'metrics:',
    '  - name: equals',
    '    code: |',
    '      result = actual == expected',
    'metrics_rollup:',
    '  name: at_least_one',
    '  code: |',
    '    result = num_passes >= 1',
    'references:',
    '  - input: {a: 4, b: 5}',
    '    expected: "45 str"',
    '  - input: {a: 1, b: 2}',
    '',
  ].join('\n'),
  'prompts/noexp.yaml': ['defaults:', '  - tests/noexp', 'name: noexp', 'model: gpt-4', 'variables:', '  - name: a', 'code: |', '  output = a', ''].join('\n'),
  'prompts/tests/noexp.yaml': ['metrics:', '  - name: equals', '    code: |', '      result = actual == expected', 'references:', '  - input: {a: 1}', ''].join('\n'),
};

describe('tracecheck eval on an llmeval folder, as llmeval runs it', () => {
  it('runs llmeval.yaml with no file named, notes the Hydra settings, casts variables to strings, fails a metric reading a missing expected, and counts tests by their roll-up', async () => {
    const dir = writeSuite(FILES);
    const res = await runCommand(process.execPath, [DEV_BIN, 'eval', 'run_id=edges'], { cwd: dir, env: {}, timeoutMs: RUN_BOUND_MS });
    expect(res.stderr).toMatch(/^note: llmeval\.yaml:2: Hydra's defaults entries \(prompts; _self_\) are ignored; prompts are chosen by "prompts" \(default prompts\/\*\.yaml\)$/m);
    expect(res.stderr).toMatch(/^note: llmeval\.yaml:9: the hydra: section is ignored \(Hydra settings; prompts are chosen by "prompts", variants by "sweep" and key=value overrides\)$/m);
    const run = JSON.parse(readFileSync(join(dir, '.tracecheck/runs/edges/report.json'), 'utf8')) as RunResult;
    const concat = run.prompts.find((p) => p.name === 'concat')!;
    // 4 and 5 reach the code as the strings "4" and "5".
    expect(concat.rows.map((r) => [r.reference.id, r.status, r.tries[0].actual])).toEqual([
      ['1', 'pass', '45 str'],
      ['2', 'fail', '12 str'],
    ]);
    expect(concat.rows[1].tries[0].metrics[0]).toMatchObject({ name: 'equals', passed: false, error: expect.stringMatching(/^metric code failed: NameError: name 'expected' is not defined/) as unknown });
    expect(concat.tests).toEqual([{ name: 'at_least_one', params: { model: 'gpt-4' }, counts: { num_passes: 1, num_fails: 1, num_skip_passes: 0, num_skip_fails: 0, n_tries: 1 }, result: 'pass' }]);
    expect(run.prompts.find((p) => p.name === 'noexp')!.rows.map((r) => r.status)).toEqual(['fail']);
    expect(res.stdout).toContain('concat at_least_one: PASS (num_passes=1 num_fails=1 num_skip_passes=0 num_skip_fails=0)\nFAILED: 1 passed, 0 failed of 1 tests by their roll-up; 0 passed, 1 failed, 0 skipped of 1 references (run edges)\n');
    expect(res.code).toBe(1);
  }, RUN_BOUND_MS);
});
