// The embedded bus alone: what its log on disk costs. Producers send batches of 100 records of
// ~1.5 KB (the size of a span envelope) as collector requests do, `concurrency` at a time, for a few
// seconds, while one consumer group reads and commits; in memory only, on disk without fsync, and
// on disk with fsync (group commit: concurrent sends share one write and one fdatasync).
// `npm run bench:bus`. Results are appended to bench/results/embedded-bus.md.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryBus } from '../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';

const SECONDS = 3;
const BATCH = 100;
const value = JSON.stringify({ kind: 'span', body: 'x'.repeat(1400) });
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;

async function measure(mode: 'memory' | 'disk, no fsync' | 'disk, fsync', concurrency: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bench-bus-'));
  const bus = createInMemoryBus({
    log: createSilentLogger(),
    maxRetainedRecords: 10_000_000,
    ...(mode === 'memory' ? {} : { durable: { dir, fsync: mode === 'disk, fsync' } }),
  });
  let consumed = 0;
  const consumer = bus.createConsumer({ topic: 'spans', groupId: 'g', handle: () => Promise.resolve(void (consumed += 1)) });
  await consumer.start();
  const producer = bus.createProducer();
  await producer.start();
  const latencies: number[] = [];
  let sent = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t0 = performance.now();
        await producer.send('spans', Array.from({ length: BATCH }, (_, r) => ({ key: `trace-${w}-${i}-${r % 10}`, value })));
        latencies.push(performance.now() - t0);
        sent += BATCH;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await consumer.shutdown();
  await producer.shutdown();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
  const row = `| ${mode} | ${concurrency} | ${Math.round(sent / seconds).toLocaleString('en-US')} | ${pct(latencies, 50).toFixed(1)} / ${pct(latencies, 99).toFixed(1)} ms | ${consumed.toLocaleString('en-US')} |`;
  console.log(row);
  return row;
}

const rows: string[] = [];
for (const concurrency of [1, 16]) {
  for (const mode of ['memory', 'disk, no fsync', 'disk, fsync'] as const) rows.push(await measure(mode, concurrency));
}
const table = [
  `## ${new Date().toISOString()} – ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Batches of ${BATCH} records of ${value.length} bytes for ${SECONDS} s each, one consumer group reading along.`,
  '',
  '| bus | concurrent senders | records/s acknowledged | send latency p50 / p99 | records consumed |',
  '|---|---:|---:|---|---:|',
  ...rows,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'embedded-bus.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# Embedded bus benchmark\n\nThe in-process bus in memory, on disk without fsync, and on disk with fsync (group commit).\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
