import { afterEach, describe, expect, it } from 'vitest';
import type { ProcessPool, ProcessPoolOptions } from './process-pool.ts';
import { createProcessPool } from './process-pool.ts';

// A worker speaking the pool's protocol: answers each request with its own pid; `slow` after 300 ms; `hang` never answers.
const ECHO_WORKER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: true, startMs: 0 }) + '\\n');
rl.on('line', (line) => {
  const { id, request } = JSON.parse(line);
  const answer = () => process.stdout.write(JSON.stringify({ id, pid: process.pid }) + '\\n');
  if (request === 'slow') setTimeout(answer, 300);
  else if (request !== 'hang') answer();
});`;

let pool: ProcessPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});
const open = (options: Partial<ProcessPoolOptions>): ProcessPool =>
  (pool = createProcessPool({ name: 'test pool', args: ['-e', ECHO_WORKER], limits: { memoryMb: 256, cpuSeconds: 30 }, size: 2, startTimeoutMs: 30_000, ...options }));
const pidOf = async (p: ProcessPool, owner: string, key = 'check'): Promise<number> => {
  const outcome = await p.run({ owner, key, request: 'echo', timeoutMs: 30_000 });
  if (outcome.kind !== 'reply') throw new Error(`expected a reply, got ${JSON.stringify(outcome)}`);
  return outcome.message.pid as number;
};

describe('a sandbox process serves one project only', () => {
  it('two projects one after another get two processes, each reused by its own project only', async () => {
    const p = open({ size: 2, perOwner: 1 });
    const a = await pidOf(p, 'project-a');
    const b = await pidOf(p, 'project-b');
    expect(b).not.toBe(a);
    expect(await pidOf(p, 'project-a')).toBe(a);
    expect(await pidOf(p, 'project-b')).toBe(b);
    expect(p.processes().sort((x, y) => x.owner.localeCompare(y.owner))).toEqual([
      { pid: a, owner: 'project-a' },
      { pid: b, owner: 'project-b' },
    ]);
    expect(p.stats().starts).toBe(2);
  });

  it('a full pool ends the least recently used idle process for a third project, and stays within its size', async () => {
    let t = 0;
    const p = open({ size: 2, perOwner: 1, now: () => ++t });
    const a = await pidOf(p, 'project-a');
    const b = await pidOf(p, 'project-b');
    await pidOf(p, 'project-a');
    const c = await pidOf(p, 'project-c');
    expect([c === a, c === b]).toEqual([false, false]);
    expect(p.processes().map((x) => x.owner).sort()).toEqual(['project-a', 'project-c']);
    expect(p.processes().find((x) => x.owner === 'project-a')?.pid).toBe(a);
    expect(p.stats().starts).toBe(3);
  });

  it('a project with five waiting jobs starts perOwner (2) processes, and another project still gets its own', async () => {
    const p = open({ size: 4, perOwner: 2 });
    const [a, b] = await Promise.all([Promise.all([1, 2, 3, 4, 5].map((i) => pidOf(p, 'project-a', `check-${i}`))), pidOf(p, 'project-b')]);
    expect(p.stats().starts).toBe(3);
    expect(a).not.toContain(b);
    expect(p.processes().map((x) => x.owner).sort()).toEqual(['project-a', 'project-a', 'project-b']);
  });
});

describe('a project with a backlog does not keep a full pool to itself', () => {
  it('a second project gets a process when one of the first\'s frees, before the first\'s backlog is done', async () => {
    const p = open({ size: 2, perOwner: 2 });
    const done: string[] = [];
    const job = (owner: string, i: number) => p.run({ owner, key: `check-${i}`, request: 'slow', timeoutMs: 30_000 }).then((o) => done.push(`${owner}:${o.kind}`));
    const a = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => job('project-a', i));
    // Once project A holds both processes.
    await new Promise((resolve) => setImmediate(resolve));
    const b = job('project-b', 1);
    await Promise.all([...a, b]);
    expect(done.indexOf('project-b:reply')).toBeGreaterThanOrEqual(0);
    expect(done.indexOf('project-b:reply')).toBeLessThan(done.length - 1);
    // B's process was started for it alone (A's idle one ended to make room): one start more than A's two.
    expect(p.stats().starts).toBeGreaterThanOrEqual(3);
  });
});

describe('a check\'s pause holds in its own project only', () => {
  it('the same check code that timed out 3 times in project A still runs in project B', async () => {
    const p = open({ size: 2, perOwner: 1, breakerFailures: 3, breakerCooldownMs: 60_000 });
    for (let i = 0; i < 3; i++) expect(await p.run({ owner: 'project-a', key: 'same-code', request: 'hang', timeoutMs: 300 })).toEqual({ kind: 'timeout' });
    const paused = await p.run({ owner: 'project-a', key: 'same-code', request: 'echo', timeoutMs: 30_000 });
    expect(paused.kind === 'refused' && /^paused until \S+: its last 3 evaluations each cost a sandbox process \(the last: timed out after 300 ms\)$/.test(paused.error)).toBe(true);
    const other = await p.run({ owner: 'project-b', key: 'same-code', request: 'echo', timeoutMs: 30_000 });
    expect(other.kind).toBe('reply');
  });
});
