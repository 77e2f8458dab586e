import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../cli/commands/eval.ts';
import { createModelServer } from '../../../tools/model-server/src/index.ts';
import type { ModelServer } from '../../../tools/model-server/src/index.ts';
import type { RunResult } from '../../../tools/eval/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli } from './helpers.ts';

const EXAMPLE = resolve(import.meta.dirname, '../../../examples/tracecheck.yaml');

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

function readReport(stderr: string): { run: RunResult; dir: string } {
  const m = /reports: (\S+)report\.yaml/.exec(stderr);
  if (!m) throw new Error(`no report paths in: ${stderr}`);
  const dir = m[1];
  return { run: JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunResult, dir };
}

describe('the example math suite against the local model server', () => {
  it('sweeps two models × two temperatures, two tries each, and fails because mock-sloppy is wrong', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tracecheck-math-'));
    const res = await runCli(evalCommand, [EXAMPLE, 'prompts=math', `output=${out}`, 'cache=false', 'run_id=math-1'], env);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('FAILED: 7 passed, 1 failed, 4 skipped of 12 references (run math-1)');

    const { run, dir } = readReport(res.stderr);
    expect(dir).toBe(join(out, 'math-1/'));
    expect(run.passed).toBe(false);
    const rows = run.prompts[0].rows.map((r) => ({
      model: r.params.model,
      temperature: r.params.temperature,
      ref: r.reference.id,
      actuals: r.tries.map((t) => t.actual),
      exact: r.tries.map((t) => t.metrics.find((m) => m.name === 'exact_match')!.passed),
      status: r.status,
    }));
    const expected: typeof rows = [];
    for (const model of ['mock-accurate', 'mock-sloppy']) {
      for (const temperature of [0, 1]) {
        const sloppy = model === 'mock-sloppy' && temperature === 1;
        expected.push(
          { model, temperature, ref: 'two-plus-three', actuals: sloppy ? ['6', '6'] : ['5', '5'], exact: sloppy ? [false, false] : [true, true], status: sloppy ? 'fail' : 'pass' },
          { model, temperature, ref: 'two-plus-two', actuals: ['4', '4'], exact: [true, true], status: 'pass' },
          { model, temperature, ref: 'ten-plus-seven', actuals: sloppy ? ['18', '18'] : ['17', '17'], exact: sloppy ? [false, false] : [true, true], status: 'skip' },
        );
      }
    }
    expect(rows).toEqual(expected);

    // Every metric's value and pass/fail per try, inlined in the YAML report that mirrors the config.
    const yaml = readFileSync(join(dir, 'report.yaml'), 'utf8');
    expect(yaml).toContain('name: math');
    expect(yaml).toContain('content: What is {a} + {b}?');
    expect(yaml).toMatch(/actual: "6"\n\s+passed: false\n\s+metrics:\n\s+exact_match:\n\s+value: 0\n\s+passed: false/);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('| mock-sloppy | max\\_tokens=64 temperature=1 | two-plus-three | a=2 b=3 | 5 | 6 | 0 FAIL | 1 pass | 6 | 0 FAIL | 1 pass | FAIL (0/2) |');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<tr class="fail"><td>mock-sloppy</td><td>max_tokens=64 temperature=1</td><td>two-plus-three</td>');
    // The printed table has the same row.
    expect(res.stdout).toMatch(/mock-sloppy\s+max_tokens=64 temperature=1\s+two-plus-three\s+a=2 b=3\s+5\s+6\s+0 FAIL\s+1 pass\s+6\s+0 FAIL\s+1 pass\s+FAIL \(0\/2\)/);
  });

  it('the whole example suite exits 1; overrides narrow it to a passing model', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tracecheck-examples-'));
    const all = await runCli(evalCommand, [EXAMPLE, `output=${out}`, 'cache=false'], env);
    expect(all.code).toBe(1);
    expect(all.stdout).toMatch(/^FAILED: 10 passed, 1 failed, 4 skipped of 15 references/m);

    const narrowed = await runCli(evalCommand, [EXAMPLE, 'prompts=math', 'model=mock-accurate', 'n_tries=1', `output=${out}`, 'cache=false', '--quiet'], env);
    expect(narrowed.code).toBe(0);
    expect(narrowed.stdout).toMatch(/^PASSED: 4 passed, 0 failed, 2 skipped of 6 references/);
  });

  it('caches generations, resumes a run id, and rolls several runs up', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tracecheck-resume-'));
    const cache = join(out, 'cache');
    const args = [EXAMPLE, 'prompts=math', `output=${out}`, `cache=${cache}`, '--quiet'];
    const first = await runCli(evalCommand, [...args, 'run_id=a'], env);
    expect(first.code).toBe(1);
    expect(readReport(first.stderr).run.summary).toMatchObject({ tries: 24, cachedTries: 0, resumedTries: 0 });

    const cached = await runCli(evalCommand, [...args, 'run_id=b'], env);
    expect(readReport(cached.stderr).run.summary).toMatchObject({ tries: 24, cachedTries: 24, resumedTries: 0 });

    const resumed = await runCli(evalCommand, [...args, 'run_id=a'], env);
    expect(readReport(resumed.stderr).run.summary).toMatchObject({ tries: 24, resumedTries: 24 });
    expect(readReport(resumed.stderr).run.prompts[0].rows.map((r) => r.status)).toEqual(readReport(first.stderr).run.prompts[0].rows.map((r) => r.status));

    // An interrupted run: half of its tries recorded, the last line torn mid-write.
    const lines = readFileSync(join(out, 'a', 'tries.jsonl'), 'utf8').trim().split('\n');
    mkdirSync(join(out, 'c'));
    writeFileSync(join(out, 'c', 'tries.jsonl'), `${lines.slice(0, 12).join('\n')}\n${lines[12].slice(0, 40)}`);
    const continued = await runCli(evalCommand, [EXAMPLE, 'prompts=math', `output=${out}`, 'cache=false', '--quiet', 'run_id=c'], env);
    expect(readReport(continued.stderr).run.summary).toMatchObject({ tries: 24, resumedTries: 12, cachedTries: 0 });
    expect(readReport(continued.stderr).run.prompts[0].rows).toEqual(readReport(first.stderr).run.prompts[0].rows.map((r) => ({ ...r, tries: r.tries.map((t) => ({ ...t, latencyMs: expect.any(Number) as number })) })));

    const report = await runCli(evalCommand, ['report', join(out, 'a'), join(out, 'b', 'report.json')], env);
    expect(report.code).toBe(1);
    expect(report.stdout).toContain('FAILED: 14 passed, 2 failed, 8 skipped of 24 references (run a, b)');
    expect(report.stdout.split('\n').filter((l) => /^[ab]\s+mock-sloppy\s+max_tokens=64 temperature=1\s+two-plus-three/.test(l))).toHaveLength(2);
    expect(existsSync(join(out, 'a', 'tries.jsonl'))).toBe(true);
  });
});
