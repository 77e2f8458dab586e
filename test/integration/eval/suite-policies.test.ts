import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../cli/commands/eval.ts';
import { createModelServer } from '../../../tools/model-server/src/index.ts';
import type { ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli, writeSuite } from './helpers.ts';

let server: ModelServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = createModelServer({ log: createSilentLogger(), port: 0 });
  await server.start();
  env = { OPENAI_BASE_URL: `${server.url()}/v1` };
});

afterAll(async () => {
  await server.shutdown();
});

const MAIN = 'prompts: prompts/*.yaml\noutput: out\ncache: false\n';

// A user module that asks mock-sloppy at temperature 1 on odd tries only: for 2 + 3 the tries
// answer 5, 6, 5 — two passes and one fail.
const FLAKY_MODULE = `
export default async function run(args) {
  const temperature = args.try % 2 === 1 ? 1 : 0;
  const res = await fetch(args.base_url + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: args.model, temperature, messages: [{ role: 'user', content: 'What is ' + args.input.a + ' + ' + args.input.b + '?' }] }),
  });
  const body = await res.json();
  return { output: body.choices[0].message.content };
}
`;

describe('roll-up policies', () => {
  const dir = writeSuite({
    'tracecheck.yaml': MAIN,
    'prompts/flaky.yaml': 'name: flaky\nmodel: mock-sloppy\nmodule: ../flaky.mjs\nn_tries: 3\nmetrics: [exact_match]\nreferences:\n  - id: odd\n    input: {a: 2, b: 3}\n    expected: 5\n',
    'flaky.mjs': FLAKY_MODULE,
  });

  it('the default fails a reference when any try fails; majority passes it', async () => {
    const strict = await runCli(evalCommand, [join(dir, 'tracecheck.yaml'), 'run_id=strict'], env);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/odd\s+a=2 b=3\s+5\s+5\s+1 pass\s+6\s+0 FAIL\s+5\s+1 pass\s+FAIL \(2\/3\)/);

    const majority = await runCli(evalCommand, [join(dir, 'tracecheck.yaml'), 'run_id=majority', 'metrics_rollup=majority'], env);
    expect(majority.code).toBe(0);
    expect(majority.stdout).toMatch(/odd\s+a=2 b=3\s+5\s+5\s+1 pass\s+6\s+0 FAIL\s+5\s+1 pass\s+PASS \(2\/3\)/);

    const expression = await runCli(evalCommand, [join(dir, 'tracecheck.yaml'), 'run_id=all-but-two', 'metrics_rollup=num_passes >= 3'], env);
    expect(expression.code).toBe(1);
  });
});

describe('skipped references', () => {
  const dir = writeSuite({
    'tracecheck.yaml': MAIN,
    'prompts/sloppy.yaml': [
      'name: sloppy',
      'model: mock-sloppy',
      'temperature: 1',
      'prompt: "What is {a} + {b}?"',
      'metrics: [exact_match]',
      'references:',
      '  - {id: even, input: {a: 2, b: 2}, expected: 4}',
      '  - {id: odd, input: {a: 2, b: 3}, expected: 5, skip: true}',
      '',
    ].join('\n'),
  });

  it('report but do not fail the suite under the default policy', async () => {
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/odd \(skip\)\s+a=2 b=3\s+5\s+6\s+0 FAIL\s+SKIP \(0\/1\)/);
    expect(res.stdout).toContain('PASSED: 1 passed, 0 failed, 1 skipped of 2 references');
  });

  it('fail it under a policy that asks about skipped tries', async () => {
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml'), 'metrics_rollup=num_fails + num_skip_fails == 0'], env);
    expect(res.code).toBe(1);
  });
});

describe('configuration errors: file and line, exit 2, no report', () => {
  const noReport = (dir: string): void => {
    const out = join(dir, 'out');
    const reports = existsSync(out) ? readdirSync(out, { recursive: true }).map(String).filter((f) => f.includes('report.')) : [];
    expect(reports).toEqual([]);
  };

  it('malformed YAML', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/bad.yaml': 'name: bad\nmodel: mock-accurate\nprompt: "What is {a}?"\nreferences:\n  - input: {a: 1\n    expected: 1\n',
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/prompts\/bad\.yaml:\d+: invalid YAML: /);
    expect(res.stdout).toBe('');
    noReport(dir);
  });

  it('an unknown variable in a template, before any model call', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/math.yaml': 'name: math\nmodel: mock-accurate\nmessages:\n  - role: system\n    content: Be brief.\n  - role: user\n    content: "What is {a} + {c}?"\ndefaults: ../tests.yaml\n',
      'tests.yaml': 'metrics: [exact_match]\nreferences:\n  - input: {a: 1, b: 2}\n    expected: 3\n',
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('prompts/math.yaml:7: unknown variable {c} in template: reference 1 (');
    expect(res.stderr).toContain('tests.yaml:3) has no input "c"');
    noReport(dir);
  });

  it('a metric expression that throws', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/math.yaml': [
        'name: math',
        'model: mock-accurate',
        'prompt: "What is {a} + {b}?"',
        'metrics:',
        '  - exact_match',
        '  - name: ratio',
        '    value: number(actual) / (number(expected) - 3)',
        'references:',
        '  - {input: {a: 1, b: 2}, expected: 3}',
        '',
      ].join('\n'),
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('prompts/math.yaml:7: metric "ratio" value "number(actual) / (number(expected) - 3)" failed: division by zero');
    expect(res.stdout).toBe('');
    noReport(dir);
  });

  it('a metric expression that cannot parse, or names an unknown variable', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/math.yaml': 'name: math\nmodel: mock-accurate\nprompt: "What is {a}?"\nmetrics:\n  - name: m\n    pass: acutal == expected\nreferences:\n  - {input: {a: 1}}\n',
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('prompts/math.yaml:6: metric "m" pass: unknown name "acutal"');
  });
});

describe('checks as metrics', () => {
  it('a catalog check by name, an inline model check judged by the model server, an inline code check in the sandbox', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/checked.yaml': [
        'name: checked',
        'model: mock-sloppy',
        'temperature: 1',
        'prompt: "What is {a} + {b}?"',
        'metrics:',
        '  - exact_match',
        '  - task_completed',
        '  - name: nonempty',
        '    check:',
        '      kind: model',
        '      prompt: "Is the final output {model_output} a non-empty answer? Answer [[True]] or [[False]]."',
        '  - name: short',
        '    check:',
        '      kind: code',
        '      language: javascript',
        '      source: "export function evaluate(args) { return args.model_output.length < 3 }"',
        'references:',
        '  - {id: even, input: {a: 2, b: 2}, expected: 4}',
        '',
      ].join('\n'),
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], { ...env, TRACECHECK_JUDGE_MODEL: 'mock-judge' });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/try 1 exact_match\s+try 1 task_completed\s+try 1 nonempty\s+try 1 short\s+result/);
    expect(res.stdout).toMatch(/even\s+a=2 b=2\s+4\s+4\s+1 pass\s+1 pass\s+1 pass\s+1 pass\s+PASS \(1\/1\)/);
  });

  it('an unknown check name is a configuration error', async () => {
    const dir = writeSuite({
      'tracecheck.yaml': MAIN,
      'prompts/p.yaml': 'name: p\nmodel: mock-accurate\nprompt: hi\nmetrics:\n  - exact_match\n  - no_such_check\nreferences:\n  - input: {}\n',
    });
    const res = await runCli(evalCommand, [join(dir, 'tracecheck.yaml')], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/prompts\/p\.yaml:6: metric "no_such_check": no check named "no_such_check"/);
  });
});
