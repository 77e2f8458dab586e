import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRetriable } from '../../../shared/runtime/errors/index.ts';
import type { LogRecordEnvelope } from '../../../shared/contracts/schemas/index.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';
import { createHeldRecords } from './held-records.ts';
import { createSpillStore } from './spill-store.ts';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';

const parents: string[] = [];
function parentDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
  parents.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of parents.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const bytesOf = (n: number, fill: number): Buffer => Buffer.alloc(n, fill);
const segmentFiles = (dir: string): string[] => readdirSync(dir).sort((a, b) => parseInt(a) - parseInt(b));

/** Every write to segment `no` fails with ENOSPC (the file is /dev/full). */
const failSegment = (dir: string, no: number): void => symlinkSync('/dev/full', join(dir, `${no}.seg`));

describe('spill store', () => {
  it('gives back small, large (past a segment) and unicode records exactly', () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 4096 });
    const small = store.put(Buffer.from('{}'));
    const large = store.put(bytesOf(100_000, 7));
    const text = '予約しました 🍽️ « quoted » \u0000 \\"';
    const unicode = store.put(Buffer.from(text, 'utf8'));
    expect(store.get(small).toString()).toBe('{}');
    expect(store.get(large).equals(bytesOf(100_000, 7))).toBe(true);
    expect(store.get(unicode).toString('utf8')).toBe(text);

    const records = createHeldRecords(store);
    const span = createTestSpan({ name: `chat ${'Ω🍽️'.repeat(2_000)}` });
    const id = records.hold(span, { partition: 3, offset: 9007199254740n });
    expect(records.read(id)).toEqual({ record: span, at: { partition: 3, offset: 9007199254740n } });
    expect(records.read(records.hold({ a: 1 }))).toEqual({ record: { a: 1 }, at: undefined });
    store.close();
  });

  it('rotates segments and deletes a segment file once none of its records is held', () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 4096 });
    const { dir } = store.stats();
    // Four 1,000-byte records per 4,096-byte segment.
    const ids = Array.from({ length: 10 }, (_, i) => store.put(bytesOf(1_000, i)));
    expect(segmentFiles(dir)).toEqual(['0.seg', '1.seg', '2.seg']);
    for (const id of ids.slice(0, 3)) store.free(id);
    expect(segmentFiles(dir)).toEqual(['0.seg', '1.seg', '2.seg']);
    store.free(ids[3]);
    expect(segmentFiles(dir)).toEqual(['1.seg', '2.seg']);
    // The segment being written stays, empty or not.
    for (const id of ids.slice(4)) store.free(id);
    expect(segmentFiles(dir)).toEqual(['2.seg']);
    expect(store.stats()).toMatchObject({ segments: 1, records: 0, liveBytes: 0, diskBytes: 2_000 });
    // An id freed is given out again, with its new contents.
    const again = store.put(bytesOf(10, 42));
    expect(ids).toContain(again);
    expect(store.get(again).equals(bytesOf(10, 42))).toBe(true);
    store.close();
  });

  it('rewrites segments kept alive by a few records: the files stay within about twice the live bytes plus a segment or two', () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 4096 });
    const ids = Array.from({ length: 40 }, (_, i) => store.put(bytesOf(1_000, i)));
    // One record in four is kept: ten segments hold 10,000 live bytes in 40,000.
    const kept = ids.filter((_, i) => i % 4 === 0);
    for (const id of ids) if (!kept.includes(id)) store.free(id);
    expect(store.stats()).toMatchObject({ segments: 10, liveBytes: 10_000, diskBytes: 40_000 });
    const more = Array.from({ length: 10 }, (_, i) => store.put(bytesOf(1_000, 100 + i)));
    const { liveBytes, diskBytes } = store.stats();
    // Without rewriting: 50,000 bytes on disk.
    expect([liveBytes, diskBytes <= 2 * liveBytes + 4096]).toEqual([20_000, true]);
    // A steady churn around the long-lived records (each record freed three records later) stays bounded.
    const window: number[] = [];
    let worst = 0;
    for (let i = 0; i < 2_000; i++) {
      window.push(store.put(bytesOf(1_000, i % 256)));
      if (window.length > 3) store.free(window.shift()!);
      const stats = store.stats();
      worst = Math.max(worst, stats.diskBytes - 2 * stats.liveBytes);
    }
    expect(worst).toBeLessThanOrEqual(2 * 4096);
    kept.forEach((id, k) => expect(store.get(id).equals(bytesOf(1_000, 4 * k))).toBe(true));
    more.forEach((id, k) => expect(store.get(id).equals(bytesOf(1_000, 100 + k))).toBe(true));
    window.forEach((id, k) => expect(store.get(id).equals(bytesOf(1_000, (1_997 + k) % 256))).toBe(true));
    store.close();
  });

  it("removes at start what gone processes left, never another live process's files or anything else", () => {
    const parent = parentDir();
    const gone = join(parent, '99999999-1790000000-0123abcd');
    // Pids in use, by processes started at another time than the ones that made these.
    const earlierSelf = join(parent, `${process.pid}-1-0123abcd`);
    const reused = join(parent, `${process.ppid}-1-0123abcd`);
    // A live process on a system that could not tell its start.
    const alive = join(parent, `${process.ppid}-0-0123abcd`);
    for (const dir of [gone, earlierSelf, reused, alive]) {
      mkdirSync(dir);
      writeFileSync(join(dir, '0.seg'), 'old');
    }
    writeFileSync(join(parent, 'notes.txt'), 'not ours');
    const store = createSpillStore({ dir: parent });
    const own = basename(store.stats().dir);
    expect(readdirSync(parent).sort()).toEqual([basename(alive), own, 'notes.txt'].sort());
    store.close();
    expect(existsSync(store.stats().dir)).toBe(false);
    expect(readdirSync(parent).sort()).toEqual([basename(alive), 'notes.txt'].sort());
  });

  it('a failing write is a retriable error that keeps nothing and loses nothing; the next write goes to a new file', () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 1 });
    const { dir } = store.stats();
    const first = store.put(Buffer.from('first'));
    failSegment(dir, 1);
    let thrown: unknown;
    try {
      store.put(Buffer.from('second'));
    } catch (err) {
      thrown = err;
    }
    expect(isRetriable(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/could not be spilled to disk \(ENOSPC/);
    expect(store.stats()).toMatchObject({ records: 1, liveBytes: 5 });
    expect(store.get(first).toString()).toBe('first');
    const second = store.put(Buffer.from('second'));
    expect(store.get(second).toString()).toBe('second');
    expect(segmentFiles(dir)).toEqual(['0.seg', '2.seg']);
    store.close();
  });

  it('a span that could not be spilled is refused with a retriable error, and its re-delivery makes the trace whole', () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 1 });
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000, records: createHeldRecords(store) });
    const traceId = 'c'.repeat(32);
    const root = createTestSpan({ trace_id: traceId, span_id: '1'.repeat(16), name: 'root' });
    const child = createTestSpan({ trace_id: traceId, span_id: '2'.repeat(16), parent_span_id: '1'.repeat(16), name: 'child' });
    buf.add(child, 0, 7n, 0);
    failSegment(store.stats().dir, 1);
    expect(() => buf.add(root, 0, 8n, 0)).toThrow(expect.objectContaining({ retriable: true }));
    // Not taken for a whole trace: its root is still to come.
    expect(buf.takeReady(10)).toEqual([]);
    // The bus delivers it again.
    buf.add(root, 0, 8n, 10);
    const [ready] = buf.takeReady(20);
    expect(ready.spans).toEqual([child, root]);
    expect(ready.spans.map((s) => buf.originOf(s))).toEqual([
      { partition: 0, offset: '7' },
      { partition: 0, offset: '8' },
    ]);
    store.close();
  });

  it("deletes a trace's segment files once it is no longer retained", () => {
    const store = createSpillStore({ dir: parentDir(), segmentBytes: 1 });
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 1_000, retainClosedMs: 1_000, maxClosedTraces: 1, records: createHeldRecords(store) });
    const spanOf = (t: string) => createTestSpan({ trace_id: t.repeat(32), span_id: '1'.repeat(16) });
    buf.add(spanOf('a'), 0, 0n, 0);
    buf.add(spanOf('b'), 0, 1n, 0);
    for (const r of buf.takeReady(10)) buf.confirm(r.traceId, 10);
    // a is dropped (one closed trace kept); b is retained, so that a late span re-opens it whole.
    const { dir } = store.stats();
    expect([store.stats().records, segmentFiles(dir)]).toEqual([1, ['1.seg']]);
    buf.add(spanOf('c'), 0, 2n, 20);
    for (const r of buf.takeReady(30)) buf.confirm(r.traceId, 30);
    expect([store.stats().records, segmentFiles(dir)]).toEqual([1, ['2.seg']]);
    store.close();
  });

  it('a log sent again while its trace is unpacked: the parts keep the one taken, and the one replaced is dropped once that emission ends', () => {
    const store = createSpillStore({ dir: parentDir() });
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000, records: createHeldRecords(store) });
    const traceId = 'd'.repeat(32);
    const root = createTestSpan({ trace_id: traceId, span_id: '1'.repeat(16) });
    const log = (receivedAtMs: number): LogRecordEnvelope => ({ schema_version: 1, kind: 'log', trace_id: traceId, span_id: '1'.repeat(16), event_name: 'gen_ai.user.message', time_unix_nano: '1', sequence: 0, is_output: false, attributes: {}, received_at_ms: receivedAtMs });
    buf.add(root, 0, 0n, 0);
    buf.add(log(1), 0, 1n, 0);
    const [taken] = buf.takeReadyInSteps(10);
    // The same log (same key) again: it replaces the first, which the parts still read.
    buf.add(log(2), 0, 2n, 10);
    expect(store.stats().records).toBe(3);
    let step = taken.parts.next();
    while (!step.done) step = taken.parts.next();
    expect(step.value.logs).toEqual([log(1)]);
    // A record came while it was built: it stays open to be published again, without the one replaced.
    buf.confirm(traceId, 20);
    expect(store.stats().records).toBe(2);
    const [again] = buf.takeReady(30);
    expect(again.logs).toEqual([log(2)]);
    store.close();
  });
});
