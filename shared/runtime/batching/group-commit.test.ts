import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit.ts';

describe('group commit', () => {
  it('writes what arrives together in one batch, and what arrives during a write in the next', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const gc = createGroupCommit<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = [gc.write([1]), gc.write([2, 3])];
    await new Promise((r) => setImmediate(r));
    const second = [gc.write([4]), gc.write([5])];
    release();
    await Promise.all([...first, ...second]);
    expect(writes).toEqual([[1, 2, 3], [4, 5]]);
  });

  it('caps a batch at maxItems without splitting a caller', async () => {
    const writes: number[][] = [];
    const gc = createGroupCommit<number>((items) => Promise.resolve(void writes.push(items)), { maxItems: 3 });
    await Promise.all([gc.write([1, 2]), gc.write([3, 4]), gc.write([5]), gc.write([6, 7, 8, 9])]);
    expect(writes).toEqual([[1, 2], [3, 4, 5], [6, 7, 8, 9]]);
  });

  it('fails every caller of a failed batch and goes on with the next', async () => {
    let calls = 0;
    const gc = createGroupCommit<string>(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error('store down')) : Promise.resolve();
    });
    const results = await Promise.allSettled([gc.write(['a']), gc.write(['b'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(gc.write(['c'])).resolves.toBeUndefined();
    await gc.idle();
    expect(calls).toBe(2);
  });

  it('with isolateFailures, fails only the caller whose items fail', async () => {
    const writes: string[][] = [];
    const gc = createGroupCommit<string>(
      (items) => {
        writes.push(items);
        return items.includes('poison') ? Promise.reject(new Error('invalid score')) : Promise.resolve();
      },
      { isolateFailures: true },
    );
    const results = await Promise.allSettled([gc.write(['a']), gc.write(['poison']), gc.write(['b'])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(writes).toEqual([['a', 'poison', 'b'], ['a'], ['poison'], ['b']]);
  });
});
