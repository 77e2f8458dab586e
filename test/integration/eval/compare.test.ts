import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../../../cli/commands/compare.ts';
import type { ComparisonResult } from '../../../tools/eval/src/index.ts';
import { createModelServer } from '../../../tools/model-server/src/index.ts';
import type { ModelServer } from '../../../tools/model-server/src/index.ts';
import { createPrng } from '../../../shared/runtime/flow/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runCli, writeSuite } from './helpers.ts';

const PAIRWISE = resolve(import.meta.dirname, '../../../examples/pairwise');

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

describe('tracecheck compare', () => {
  it('--preferences reproduces the seed numbers exactly', async () => {
    const res = await runCli(compareCommand, ['--preferences', join(PAIRWISE, 'preferences.jsonl')], {});
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('a preferred     19   95.00%   95% Wilson interval (ties excluded): 83.18% – 100.00%');
    expect(res.stdout).toContain('b preferred      0    0.00%   95% Wilson interval (ties excluded): 0.00% – 16.82%');
    expect(res.stdout).toContain('tie (None)       1    5.00%');
    expect(res.stdout).toContain('exact two-sided binomial test, ties excluded: p = 3.8e-6 (0.00038%)');
  });

  it('judges two output files with seeded positions and reports position bias', async () => {
    const dir = writeSuite({});
    const json = join(dir, 'result.json');
    const res = await runCli(compareCommand, [join(PAIRWISE, 'outputs-a.jsonl'), join(PAIRWISE, 'outputs-b.jsonl'), '--seed', '42', '--json', json], env);
    expect(res.code).toBe(0);
    const result = JSON.parse(readFileSync(json, 'utf8')) as ComparisonResult;
    // The mock judge prefers the more complete output: every "a" output is longer.
    expect(result.stats).toMatchObject({ a: 5, b: 0, ties: 0 });
    expect(result.errors).toBe(0);
    expect(result.stats.pValue).toBe(0.0625);
    const rng = createPrng(42);
    const firsts = Array.from({ length: 5 }, () => (rng() < 0.5 ? 'a' : 'b'));
    expect(result.items.map((i) => i.first)).toEqual(firsts);
    expect(result.positionBias).toMatchObject({ decided: 5, firstWon: firsts.filter((f) => f === 'a').length });
    expect(result.seed).toBe(42);
    expect(res.stdout).toContain('positions seeded with 42');
  });

  it('runs two prompt configs through their models, then judges against the reference', async () => {
    const refs = 'references:\n  - {id: odd, input: {a: 2, b: 3}, expected: 5}\n  - {id: odd2, input: {a: 4, b: 3}, expected: 7}\n  - {id: even, input: {a: 2, b: 2}, expected: 4}\n';
    const dir = writeSuite({
      'a.yaml': `name: careful\nmodel: mock-accurate\ntemperature: 1\nprompt: "What is {a} + {b}?"\n${refs}`,
      'b.yaml': `name: sloppy\nmodel: mock-sloppy\ntemperature: 1\nprompt: "What is {a} + {b}?"\n${refs}`,
    });
    const json = join(dir, 'result.json');
    const res = await runCli(compareCommand, ['--prompts', join(dir, 'a.yaml'), join(dir, 'b.yaml'), '--seed', '7', '--json', json], env);
    expect(res.code).toBe(0);
    const result = JSON.parse(readFileSync(json, 'utf8')) as ComparisonResult;
    expect(result.items.map((i) => [i.id, i.preferred])).toEqual([
      ['odd', 'a'],
      ['odd2', 'a'],
      ['even', null],
    ]);
    expect(result.stats).toMatchObject({ a: 2, b: 0, ties: 1 });
  });

  it('--prompts runs llmeval prompt code, each prompt\'s code setting output', async () => {
    const refs = 'references:\n  - {id: one, input: {a: 2, b: 3}, expected: 5}\n  - {id: two, input: {a: 4, b: 3}, expected: 7}\n';
    const dir = writeSuite({
      'a.yaml': `name: coded\nmodel: mock-accurate\ncode: |\n  output = "The answer is " + str(int({a}) + int({b})) + ", since adding " + str({a}) + " and " + str({b}) + " gives it."\n${refs}`,
      'b.yaml': `name: terse\nmodel: mock-accurate\ncode: |\n  output = "?"\n${refs}`,
    });
    const json = join(dir, 'result.json');
    const res = await runCli(compareCommand, ['--prompts', join(dir, 'a.yaml'), join(dir, 'b.yaml'), '--seed', '3', '--json', json], env);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(readFileSync(json, 'utf8')) as ComparisonResult;
    expect(result.items.map((i) => i.id)).toEqual(['one', 'two']);
    expect(result.errors).toBe(0);
    expect(result.stats.total).toBe(2);
  });

  it('--prompts whose code raises: one line naming the prompt file and reference, exit 2', async () => {
    const dir = writeSuite({
      'a.yaml': 'name: broken\nmodel: mock-accurate\ncode: |\n  output = str(1 / 0)\nreferences:\n  - {id: one, input: {a: 2}, expected: 2}\n',
      'b.yaml': 'name: fine\nmodel: mock-accurate\ncode: |\n  output = "2"\nreferences:\n  - {id: one, input: {a: 2}, expected: 2}\n',
    });
    const res = await runCli(compareCommand, ['--prompts', join(dir, 'a.yaml'), join(dir, 'b.yaml'), '--seed', '3'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`tracecheck compare: ${join(dir, 'a.yaml')}:1: reference one: prompt code failed: ZeroDivisionError: division by zero (line 1)\n`);
  });

  it('bad input: file and line, exit 2', async () => {
    const dir = writeSuite({ 'p.jsonl': '{"preferred": "a"}\n{"preferred": "x"}\n' });
    const res = await runCli(compareCommand, ['--preferences', join(dir, 'p.jsonl')], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/p\.jsonl:2: "preferred" must be "a", "b" or null/);
  });
});
