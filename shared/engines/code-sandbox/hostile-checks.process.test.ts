import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import type { CodeRunResult } from '../checks/index.ts';
import { createCodeSandbox } from './create-code-sandbox.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const ts = (source: string) => ({ source, language: 'typescript' as const, args: {} });

describe.runIf(process.platform === 'linux')('code checks that go for memory (OS data limit of 256 MB)', () => {
  const sandbox = createCodeSandbox({ memoryMb: 256, processes: 2 });
  afterAll(() => sandbox.close());
  const outOfMemory = { ok: false, error: 'ran out of memory (limit 256 MB)' };
  const next = async () => expect(await sandbox.evaluate(ts('export function evaluate(a: { n?: number }) { return 42; }'))).toEqual({ ok: true, value: 42 });

  it('four 1 GB Uint8Arrays: refused at once, and the next evaluation succeeds', async () => {
    const source = 'export function evaluate() { const keep: Uint8Array[] = []; for (let i = 0; i < 4; i++) { const a = new Uint8Array(1024 ** 3); a.fill(1); keep.push(a); } return keep.length; }';
    expect(await sandbox.evaluate({ ...ts(source), timeoutMs: 10_000 })).toEqual(outOfMemory);
    await next();
  });

  it('typed arrays of 64 MB, kept until the limit', async () => {
    const source = 'export function evaluate() { const keep: Uint8Array[] = []; for (;;) keep.push(new Uint8Array(64 * 1024 * 1024).fill(7)); }';
    expect(await sandbox.evaluate({ ...ts(source), timeoutMs: 10_000 })).toEqual(outOfMemory);
    await next();
  });

  it('WebAssembly.Memory grown page by page, and a resizable ArrayBuffer', async () => {
    const wasm = 'export function evaluate() { const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (let i = 0; i < 64; i++) m.grow(1024); return m.buffer.byteLength; }';
    expect(await sandbox.evaluate({ ...ts(wasm), timeoutMs: 10_000 })).toEqual(outOfMemory);
    const resizable = 'export function evaluate() { const b = new ArrayBuffer(1, { maxByteLength: 2 ** 32 }); (b as unknown as { resize(n: number): void }).resize(2 ** 31); return b.byteLength; }';
    expect(await sandbox.evaluate({ ...ts(resizable), timeoutMs: 10_000 })).toEqual(outOfMemory);
    await next();
  });

  it('string bombs: a 400 MB join and a flattened 256 MB rope', async () => {
    const join = 'export function evaluate() { const s = "x".repeat(1 << 20); const parts: string[] = []; for (let i = 0; i < 400; i++) parts.push(s + i); return parts.join("").length; }';
    expect(await sandbox.evaluate({ ...ts(join), timeoutMs: 10_000 })).toEqual(outOfMemory);
    const rope = 'export function evaluate() { let s = "ab"; for (let i = 0; i < 27; i++) s += s; return s.indexOf("c"); }';
    expect(await sandbox.evaluate({ ...ts(rope), timeoutMs: 10_000 })).toEqual(outOfMemory);
    await next();
  });

  it('Buffer is not there to call, and a returned huge string comes back cut to 2,000 characters', async () => {
    expect(await sandbox.evaluate(ts('export function evaluate() { return (globalThis as any).Buffer.alloc(2 ** 30).length; }'))).toEqual({
      ok: false, error: "evaluate threw: TypeError: Cannot read properties of undefined (reading 'alloc')",
    });
    const res = await sandbox.evaluate(ts('export function evaluate() { return "y".repeat(50_000_000); }'));
    expect(res).toEqual({ ok: true, value: 'y'.repeat(2_000) });
  });
});

describe('code checks that go for time', () => {
  it('an infinite loop is stopped by SIGKILL of its process at the deadline; a new process serves the next call', async () => {
    const sandbox = createCodeSandbox({ processes: 1 });
    try {
      expect(await sandbox.evaluate(ts('export function evaluate() { return 1; }'))).toEqual({ ok: true, value: 1 });
      const [first] = sandbox.pids();
      expect(await sandbox.evaluate({ ...ts('export async function evaluate() { for (;;) await null; }'), timeoutMs: 500 })).toEqual({ ok: false, error: 'timed out after 500 ms' });
      await waitFor(() => !alive(first), { timeoutMs: 5_000, description: `process ${first} to be gone` });
      expect(await sandbox.evaluate(ts('export function evaluate() { return 2; }'))).toEqual({ ok: true, value: 2 });
      expect(sandbox.pids()).toHaveLength(1);
      expect(sandbox.pids()[0]).not.toBe(first);
    } finally {
      await sandbox.close();
    }
  });

  it('a never-settling promise asking for 2,000,000,000 ms is held to the 10 s bound', async () => {
    const sandbox = createCodeSandbox();
    try {
      expect(await sandbox.evaluate({ ...ts('export function evaluate() { return new Promise(() => {}); }'), timeoutMs: 2_000_000_000 })).toEqual({ ok: false, error: 'timed out after 10000 ms' });
    } finally {
      await sandbox.close();
    }
  }, 30_000);

  it('a check that always times out does not hold up 20 units of another check; after 3 timeouts in a row it is paused', async () => {
    const sandbox = createCodeSandbox({ processes: 2 });
    try {
      const hang = 'export function evaluate() { return new Promise(() => {}); }';
      const good = 'export function evaluate(args: { id: string }) { return args.id.length > 0; }';
      // Both processes started first, so that what is compared below is scheduling, not start-up on a loaded machine.
      await Promise.all([1, 2].map((n) => sandbox.evaluate(ts(`export function evaluate() { return ${n}; }`))));
      expect(sandbox.pids()).toHaveLength(2);
      const finished: string[] = [];
      const track = (what: string, p: Promise<CodeRunResult>): Promise<CodeRunResult> => p.then((r) => (finished.push(what), r));
      const units = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          Promise.all([
            track('hang', sandbox.evaluate({ source: hang, language: 'typescript', args: { id: `u${i}` }, timeoutMs: 2_000 })),
            track('good', sandbox.evaluate({ source: good, language: 'typescript', args: { id: `u${i}` } })),
          ]),
        ),
      );
      expect(units.map(([, g]) => g)).toEqual(Array.from({ length: 20 }, () => ({ ok: true, value: true })));
      // Every score of the other check came before the first timeout: it never waited for the hanging one.
      expect(finished.slice(0, 20)).toEqual(Array.from({ length: 20 }, () => 'good'));
      const errors = units.map(([h]) => (h.ok ? 'ok' : h.error.replace(/paused until \S+:/, 'paused until T:')));
      expect(errors.filter((e) => e === 'timed out after 2000 ms')).toHaveLength(3);
      expect(errors.filter((e) => e === 'paused until T: its last 3 evaluations each cost a sandbox process (the last: timed out after 2000 ms)')).toHaveLength(17);
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});

describe('work a check leaves behind runs on its own time (one process, so attacker and victim share it)', () => {
  const victim = 'export function evaluate(args: { model_output: string }) { return args.model_output.length; }';
  const victimRuns = async (): Promise<CodeRunResult[]> => {
    const results: CodeRunResult[] = [];
    for (let i = 0; i < 3; i++) results.push(await sandbox.evaluate({ source: victim, language: 'typescript', args: { model_output: 'abc' }, timeoutMs: 2_000 }));
    return results;
  };
  const sandbox = createCodeSandbox({ processes: 1 });
  afterAll(() => sandbox.close());

  it('an endless microtask chain queued before return is charged to the check that queued it; the next checks succeed', async () => {
    const attacker = 'export function evaluate() { (async () => { for (;;) await null; })(); return 1; }';
    expect(await sandbox.evaluate({ ...ts(attacker), timeoutMs: 1_000 })).toEqual({ ok: false, error: 'timed out after 1000 ms' });
    expect(await victimRuns()).toEqual([1, 2, 3].map(() => ({ ok: true, value: 3 })));
  });

  it('promise jobs that spin for 5 s after 1,000 microtask turns, queued before return, are charged to the check that queued them; the next checks succeed', async () => {
    const attacker = 'export function evaluate() { (async () => { for (let i = 0; i < 1_000; i++) await null; const t = Date.now(); while (Date.now() - t < 5_000); })(); return 1; }';
    expect(await sandbox.evaluate({ ...ts(attacker), timeoutMs: 1_000 })).toEqual({ ok: false, error: 'timed out after 1000 ms' });
    expect(await victimRuns()).toEqual([1, 2, 3].map(() => ({ ok: true, value: 3 })));
  });

  it('FinalizationRegistry and WeakRef, whose callbacks would run as later host tasks, are not there', async () => {
    expect(await sandbox.evaluate(ts('export function evaluate() { return [typeof FinalizationRegistry, typeof WeakRef].join(); }'))).toEqual({ ok: true, value: 'undefined,undefined' });
  });
});

describe('shutdown with hung checks', () => {
  it('close() kills the busy processes at once and answers their evaluations', async () => {
    const sandbox = createCodeSandbox({ processes: 3 });
    const hung = sandbox.evaluate({ ...ts('export function evaluate() { for (;;) {} }'), timeoutMs: 10_000 });
    const pids = await waitFor(() => sandbox.pids().length === 1 && sandbox.pids(), { timeoutMs: 10_000, description: 'the sandbox process' });
    await sandbox.close();
    expect(await hung).toEqual({ ok: false, error: 'the code sandbox is closed' });
    expect(pids.filter(alive)).toEqual([]);
    expect(await sandbox.evaluate(ts('export function evaluate() { return 1; }'))).toEqual({ ok: false, error: 'the code sandbox is closed' });
  });

  const startService = (timeoutMs: number, drain = false) => {
    const args = [resolve(import.meta.dirname, '../../../bin/run-ts.mjs'), resolve(import.meta.dirname, 'testing/sandbox-service.ts'), String(timeoutMs), ...(drain ? ['drain'] : [])];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: Record<string, unknown>[] = [];
    createInterface({ input: proc.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
    return { proc, lines, exited };
  };

  it('SIGTERM of the service stops it well before the checks\' 10 s deadline, and no sandbox process outlives it', async () => {
    const service = startService(10_000);
    const { pids } = (await waitFor(() => service.lines[0], { timeoutMs: 30_000, description: 'the service to report its sandbox processes' })) as { pids: number[] };
    expect(pids).toHaveLength(2);
    expect(pids.filter(alive)).toEqual(pids);
    service.proc.kill('SIGTERM');
    const stoppedBy = await Promise.race([service.exited, new Promise((res) => setTimeout(() => res('still running after 5 s'), 5_000))]);
    expect(stoppedBy).toBe(0);
    expect(service.lines[1]).toEqual({ results: [{ ok: false, error: 'the code sandbox is closed' }, { ok: false, error: 'the code sandbox is closed' }] });
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);

  it('SIGTERM of a service that drains its work first: the hung checks asked for 2,000,000,000 ms and get 10 s, so it stops', async () => {
    const service = startService(2_000_000_000, true);
    const { pids } = (await waitFor(() => service.lines[0], { timeoutMs: 30_000, description: 'the service to report its sandbox processes' })) as { pids: number[] };
    service.proc.kill('SIGTERM');
    const stoppedBy = await Promise.race([service.exited, new Promise((res) => setTimeout(() => res('still running after 20 s'), 20_000))]);
    expect(stoppedBy).toBe(0);
    expect(service.lines[1]).toEqual({ results: [{ ok: false, error: 'timed out after 10000 ms' }, { ok: false, error: 'timed out after 10000 ms' }] });
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);

  it('a service killed with SIGKILL leaves no process behind: an orphan in a loop ends at its own deadline', async () => {
    const service = startService(1_000);
    const { pids } = (await waitFor(() => service.lines[0], { timeoutMs: 30_000, description: 'the service to report its sandbox processes' })) as { pids: number[] };
    service.proc.kill('SIGKILL');
    await service.exited;
    await waitFor(() => pids.filter(alive).length === 0, { timeoutMs: 10_000, description: `sandbox processes ${pids.join(', ')} to end` });
  }, 60_000);
});
