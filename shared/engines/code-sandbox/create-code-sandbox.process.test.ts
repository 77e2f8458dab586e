import { afterAll, describe, expect, it } from 'vitest';
import { createCodeSandbox } from './create-code-sandbox.ts';

const sandbox = createCodeSandbox({ timeoutMs: 300, memoryMb: 128 });
afterAll(() => sandbox.close());
const ts = (source: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
  sandbox.evaluate({ source, language: 'typescript', args, ...(timeoutMs ? { timeoutMs } : {}) });

describe('code sandbox', () => {
  it('runs a TypeScript evaluate with the arguments', async () => {
    const src = 'export function evaluate(args: { model_output: string }): boolean { return args.model_output.includes("ok"); }';
    expect(await ts(src, { model_output: 'all ok' })).toEqual({ ok: true, value: true });
    expect(await ts(src, { model_output: 'bad' })).toEqual({ ok: true, value: false });
    expect(await sandbox.evaluate({ source: 'module.exports.evaluate = (a) => a.n * 2;', language: 'javascript', args: { n: 21 } })).toEqual({ ok: true, value: 42 });
  });

  it('awaits an async evaluate', async () => {
    expect(await ts('export async function evaluate() { return 0.5; }')).toEqual({ ok: true, value: 0.5 });
  });

  it('reports throws, syntax errors, imports and a missing evaluate', async () => {
    expect(await ts('export function evaluate() { throw new RangeError("nope"); }')).toEqual({ ok: false, error: 'evaluate threw: RangeError: nope' });
    expect((await ts('export function evaluate( { return 1 }')).ok).toBe(false);
    expect(await ts('import fs from "node:fs"; export function evaluate() { return fs.existsSync("/"); }')).toEqual({
      ok: false, error: 'imports are not available to code checks: the module must be self-contained',
    });
    expect(await ts('export const x = 1;')).toEqual({ ok: false, error: 'evaluate threw: Error: the module does not export a function evaluate(args)' });
  });

  it('stops a synchronous infinite loop and a promise that never settles', async () => {
    expect(await ts('export function evaluate() { for (;;) {} }')).toEqual({ ok: false, error: 'timed out after 300 ms' });
    expect(await ts('export function evaluate() { return new Promise(() => {}); }')).toEqual({ ok: false, error: 'timed out after 300 ms' });
    // The process was killed and restarts for the next call.
    expect(await ts('export function evaluate() { return true; }')).toEqual({ ok: true, value: true });
  });

  it('turns running out of memory into an error', async () => {
    const res = await ts('export function evaluate() { const a: string[] = []; for (;;) a.push("x".repeat(1024) + a.length); }', {}, 20_000);
    expect(res).toEqual({ ok: false, error: 'ran out of memory (limit 128 MB)' });
  });

  it('reaches no host object: no process, require, fetch, and no constructor escape', async () => {
    const probe = `export function evaluate() {
      const g = globalThis as Record<string, unknown>;
      return ['process', 'require', 'fetch', 'WebSocket', 'setTimeout', 'Buffer', 'module'].filter((k) => typeof g[k] !== 'undefined').length;
    }`;
    expect(await ts(probe)).toEqual({ ok: true, value: 0 });
    expect(await ts('export function evaluate(args: object) { return (args.constructor.constructor as FunctionConstructor)("return process")() !== undefined; }')).toEqual({
      ok: false, error: 'evaluate threw: EvalError: Code generation from strings disallowed for this context',
    });
    expect(await ts('export function evaluate() { return eval("1 + 1"); }')).toEqual({ ok: false, error: 'evaluate threw: EvalError: Code generation from strings disallowed for this context' });
  });

  it('shares no state between evaluations', async () => {
    const counter = 'let n = 0; export function evaluate() { (globalThis as any).hits = ((globalThis as any).hits ?? 0) + 1; n++; return n * 10 + (globalThis as any).hits; }';
    expect(await ts(counter)).toEqual({ ok: true, value: 11 });
    expect(await ts(counter)).toEqual({ ok: true, value: 11 });
  });

  it('passes non-boolean, non-number values back for the engine to refuse', async () => {
    expect(await ts('export function evaluate() { return "yes"; }')).toEqual({ ok: true, value: 'yes' });
    expect(await ts('export function evaluate() { return { a: 1 }; }')).toEqual({ ok: true, value: { unsupported: 'object' } });
  });

  it('transpiles check sources in the parser processes: 2,000 nested parentheses are a compile error of that check only, and the next check compiles and runs', async () => {
    const nested = `export function evaluate() { return ${'('.repeat(2_000)}1${')'.repeat(2_000)}; }`;
    expect(await ts(nested)).toEqual({ ok: false, error: 'does not compile: the TypeScript parser failed: RangeError: Maximum call stack size exceeded' });
    expect(await ts('export function evaluate(a: { n: number }) { const f = (x: number, y: number): number => x * y; return f(a.n, 2); }', { n: 21 })).toEqual({ ok: true, value: 42 });
  });
});
