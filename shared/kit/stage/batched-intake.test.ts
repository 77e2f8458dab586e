import { afterEach, describe, expect, it, vi } from 'vitest';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createBatchedIntake } from './batched-intake.ts';
import type { RecordPosition } from './window.ts';

const log = createSilentLogger();
const backoff = { initialDelayMs: 1, maxDelayMs: 2 };
const at = (offset: number): RecordPosition => ({ partition: 0, offset: BigInt(offset) });

describe('batched intake', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves the records read meanwhile together and adds them strictly in read order', async () => {
    const batches: number[][] = [];
    const added: Array<[number, bigint]> = [];
    const intake = createBatchedIntake<number>({
      resolve: (records) => {
        batches.push([...records]);
        return Promise.resolve(records.map((r) => r * 10));
      },
      add: (record, position) => void added.push([record, position.offset]),
      maxBatch: 3,
      backoff,
      log,
    });
    const works = [1, 2, 3, 4, 5].map((r) => intake.enqueue(r, at(r)));
    await Promise.all(works.map((w) => w.run()));
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(added).toEqual([
      [10, 1n],
      [20, 2n],
      [30, 3n],
      [40, 4n],
      [50, 5n],
    ]);
  });

  it('retries a retriable failure in place, holding every later record, then adds all in order', async () => {
    let failures = 2;
    const added: number[] = [];
    const intake = createBatchedIntake<number>({
      resolve: (records) => (failures-- > 0 ? Promise.reject(new RetriableError('store busy')) : Promise.resolve(records)),
      add: (record) => {
        if (record === 2 && failures-- > -2) throw new RetriableError('disk full');
        added.push(record);
      },
      maxBatch: 10,
      backoff,
      log,
    });
    await Promise.all([1, 2, 3].map((r) => intake.enqueue(r, at(r)).run()));
    expect(added).toEqual([1, 2, 3]);
  });

  it('tries a batch that failed for good record by record, so only the record at fault is refused', async () => {
    const calls: number[][] = [];
    const added: number[] = [];
    const intake = createBatchedIntake<number>({
      resolve: (records) => {
        calls.push([...records]);
        return records.includes(2) ? Promise.reject(new PermanentError('bad id')) : Promise.resolve(records);
      },
      add: (record) => {
        if (record === 3) throw new PermanentError('refused');
        added.push(record);
      },
      maxBatch: 10,
      backoff,
      log,
    });
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((r) => intake.enqueue(r, at(r)).run()));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'added' : (o.reason as Error).message))).toEqual(['added', 'bad id', 'refused', 'added']);
    expect(calls).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
    expect(added).toEqual([1, 4]);
  });

  it('on stop, leaves what is queued or waiting to be retried to be read again (a retriable failure), and takes nothing more', async () => {
    const added: number[] = [];
    const intake = createBatchedIntake<number>({
      resolve: () => Promise.reject(new RetriableError('store down')),
      add: (record) => void added.push(record),
      maxBatch: 1,
      backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      log,
    });
    vi.useFakeTimers();
    const first = intake.enqueue(1, at(1)).run();
    const second = intake.enqueue(2, at(2)).run();
    // Both resolves fail at once; the records then wait out a 60 s backoff that stop() must end.
    await vi.advanceTimersByTimeAsync(20);
    intake.stop();
    const late = intake.enqueue(3, at(3)).run();
    const outcomes = await Promise.allSettled([first, second, late]);
    expect(outcomes.map((o) => o.status === 'rejected' && o.reason instanceof RetriableError)).toEqual([true, true, true]);
    expect(added).toEqual([]);
  });
});
