import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { openPartitionLog, type LogReader } from './partition-log.ts';
import { encodeFrame, type LoggedRecord } from './record-frame.ts';

const dirs: string[] = [];
const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-log-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const record = (i: number): LoggedRecord => ({ key: `k${i}`, value: `${i}:${'x'.repeat((i * 37) % 300)}`, headers: i % 2 ? { h: String(i) } : {}, timestampMs: 1_700_000_000_000 + i });
const openLog = (dir: string, keepFrom: (start: number, end: number) => number = (start) => start) =>
  openPartitionLog({ dir, segmentBytes: 1000, fsync: false, log: createSilentLogger() }, keepFrom);

async function appendAll(log: ReturnType<typeof openLog>['log'], from: number, to: number): Promise<void> {
  // A few records per write, so that segments roll over between writes.
  for (let i = from; i < to; i += 3) await log.append(Array.from({ length: Math.min(3, to - i) }, (_, k) => encodeFrame(record(i + k))));
}

async function readAll(reader: LogReader, upTo: number, maxBytes: number): Promise<LoggedRecord[][]> {
  const chunks: LoggedRecord[][] = [];
  for (;;) {
    const chunk = await reader.read(upTo, maxBytes);
    if (chunk.length === 0) return chunks;
    chunks.push(chunk);
  }
}

describe('partition log reader', () => {
  it('reads records back in order across segments, in chunks of about maxBytes, stopping below upTo', async () => {
    const { log } = openLog(freshDir());
    await appendAll(log, 0, 60);
    expect(log.segmentCount()).toBeGreaterThan(5);
    const reader = log.openReader(7);
    const chunks = await readAll(reader, 50, 600);
    expect(chunks.flat()).toEqual(Array.from({ length: 43 }, (_, i) => record(7 + i)));
    expect(reader.position()).toBe(50);
    // Each chunk stops at the first record that reaches 600 bytes.
    for (const chunk of chunks.slice(0, -1)) {
      const sizes = chunk.map((r) => encodeFrame(r).length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(600);
      expect(sizes.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(600);
    }
    await reader.close();
    await log.close();
  });

  it('goes on reading what is appended after it reached the end', async () => {
    const { log } = openLog(freshDir());
    await appendAll(log, 0, 10);
    const reader = log.openReader(0);
    expect((await readAll(reader, log.endOffset(), 10_000)).flat()).toHaveLength(10);
    await appendAll(log, 10, 40);
    expect((await readAll(reader, log.endOffset(), 10_000)).flat()).toEqual(Array.from({ length: 30 }, (_, i) => record(10 + i)));
    await reader.close();
    await log.close();
  });

  it('reads a segment deleted while it is open, and refuses an offset no longer on disk', async () => {
    const dir = freshDir();
    const { log } = openLog(dir);
    await appendAll(log, 0, 60);
    const reader = log.openReader(0);
    const first = await reader.read(60, 1);
    expect(first).toEqual([record(0)]);
    // The segment the reader is in is deleted under it: its open handle still reads it.
    const secondBase = Number(readdirSync(dir).sort()[1].slice(0, 20));
    await log.deleteBelow(secondBase);
    expect(log.firstOffset()).toBe(secondBase);
    expect((await readAll(reader, 60, 10_000)).flat()).toEqual(Array.from({ length: 59 }, (_, i) => record(1 + i)));
    await expect(log.openReader(0).read(60, 1)).rejects.toBeInstanceOf(PermanentError);
    await reader.close();
    await log.close();
  });

  it('reports the bytes of its segments, and checks closed segments at opening without holding their records', async () => {
    const dir = freshDir();
    const { log } = openLog(dir);
    await appendAll(log, 0, 60);
    const bytes = Array.from({ length: 60 }, (_, i) => encodeFrame(record(i)).length).reduce((a, b) => a + b, 0);
    expect(log.sizeBytes()).toBe(bytes);
    await log.close();
    const reopened = openLog(dir, () => 20);
    expect(reopened.start).toBe(20);
    expect(reopened.log.sizeBytes()).toBe(bytes);
    await reopened.log.close();
    // A damaged closed segment at or after where records are kept stops the opening.
    const second = readdirSync(dir).sort()[1];
    writeFileSync(join(dir, second), Buffer.from('not a frame'));
    expect(() => openLog(dir)).toThrow(/corrupt before its end/);
  });
});
