import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test-support.ts';

describe('tracecheck checks upload: hostile code checks are refused before they are saved', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-upload-'));
  const defs = join(dir, 'defs.jsonl');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, source: string): string => {
    writeFileSync(join(dir, name), source);
    return join(dir, name);
  };

  it.runIf(process.platform === 'linux')('a check filling a 1 GB Uint8Array: refused for memory, not for time', async () => {
    const bomb = file('bomb.ts', 'export function evaluate(): boolean { return new Uint8Array(1024 ** 3).fill(1).length > 0; }');
    const r = await run(['checks', 'upload', '--file', bomb, '--name', 'bomb', '--out', defs]);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'tracecheck checks upload: invalid check definition: on sample sample-1: ran out of memory (limit 256 MB)\n' });
    expect(existsSync(defs)).toBe(false);
  }, 30_000);

  it('a timeout past 10 s, or not a whole positive number of milliseconds', async () => {
    const ok = file('ok.ts', 'export function evaluate(): boolean { return true; }');
    for (const [value, shown] of [['2000000000', '2000000000'], ['0', '0'], ['1.5', '1.5'], ['soon', 'NaN']]) {
      const r = await run(['checks', 'upload', '--file', ok, '--name', 'quick', '--timeout-ms', value, '--out', defs]);
      expect(r).toEqual({ code: 1, stdout: '', stderr: `tracecheck checks upload: invalid check definition: timeoutMs must be a whole number of milliseconds from 1 to 10000 (got ${shown})\n` });
    }
    expect(existsSync(defs)).toBe(false);
    const saved = await run(['checks', 'upload', '--file', ok, '--name', 'quick', '--timeout-ms', '10000', '--out', defs]);
    expect(saved.code).toBe(0);
    expect(JSON.parse(readFileSync(defs, 'utf8').trim()) as unknown).toMatchObject({ name: 'quick', timeoutMs: 10_000 });
  }, 30_000);

  it('a definitions file written by hand with an unbounded timeout is refused when loaded, naming the line', async () => {
    const bad = join(dir, 'bad.jsonl');
    const def = { kind: 'code', name: 'hang', description: '', outputType: 'pass_fail', language: 'typescript', source: 'export function evaluate() { return new Promise(() => {}); }', timeoutMs: 2_000_000_000 };
    writeFileSync(bad, `${JSON.stringify(def)}\n`);
    expect(await run(['checks', 'list', '--definitions', bad])).toEqual({
      code: 1, stdout: '', stderr: `tracecheck checks list: ${bad}:1: invalid check definition: timeoutMs must be a whole number of milliseconds from 1 to 10000 (got 2000000000)\n`,
    });
  });
});

describe('tracecheck checks: the SDK\'s shapes need no extra flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-sdk-'));
  const defs = join(dir, 'defs.jsonl');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const lastDefinition = (): Record<string, unknown> => JSON.parse(readFileSync(defs, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;

  it('upload: an int-returning CodeBasedCheck is an unbounded score with no --type', async () => {
    const file = join(dir, 'length.py');
    writeFileSync(file, 'from okareo.checks import CodeBasedCheck\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str, scenario_result: str) -> int:\n        return len(model_output) * 10\n');
    const r = await run(['checks', 'upload', '--file', file, '--name', 'length_x10', '--requires-scenario-result', '--out', defs]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastDefinition()).toMatchObject({ kind: 'code', name: 'length_x10', outputType: 'score', range: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], language: 'python', requires: ['scenario_result'] });
  }, 60_000);

  it('create: --type SCORE as the SDK spells it', async () => {
    const prompt = join(dir, 'count.txt');
    writeFileSync(prompt, 'Only output the number of words in the following text: {generation}');
    const r = await run(['checks', 'create', '--name', 'word_count', '--prompt-file', prompt, '--type', 'SCORE', '--out', defs]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastDefinition()).toMatchObject({ kind: 'model', outputType: 'score', range: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] });
  });

  it('create: a template naming {audience}, no template variable, is saved with it left as-is and a warning', async () => {
    const prompt = join(dir, 'audience.txt');
    writeFileSync(prompt, 'Is {generation} written for {audience}?');
    const r = await run(['checks', 'create', '--name', 'for_audience', '--prompt-file', prompt, '--type', 'pass_fail', '--out', defs]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[1]).toMatch(/^warning: \{audience\} is no template variable and is left as-is in the prompt \(the variables: /);
    expect(lastDefinition()).toMatchObject({ kind: 'model', name: 'for_audience', promptTemplate: 'Is {generation} written for {audience}?' });
  });
});
