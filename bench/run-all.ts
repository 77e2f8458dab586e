// `npm run bench`: every benchmark, one after another (each measures one core, so never in
// parallel). A benchmark is a script in bench/ plus one line saying what it measures; add yours to
// BENCHMARKS. Arguments after `--` are passed to every script.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

interface Benchmark {
  name: string;
  measures: string;
}

const BENCHMARKS: Benchmark[] = [
  {
    name: 'collector',
    measures:
      'collector throughput on one core: OTLP protobuf and JSON exports (100 GenAI spans each) decoded, normalized and produced, onto the in-process bus and onto Kafka (skipped when no broker answers), against bare protobuf decode; appended to bench/results/collector.md',
  },
  {
    name: 'checks',
    measures:
      'the deterministic check tier over labelled real agent conversations (bench/data/eval-subset): errors per check, agreement with the trace-derived labels, units per second on one core',
  },
  {
    name: 'monitoring',
    measures:
      'monitoring over 1,000,000 generated scores: GET /api/v1/series and /api/v1/compare through the API app (p50/p95 of 50 queries) on DuckDB and on ClickHouse (skipped when it does not answer), and one alerter pass over 100 rules; appended to bench/results/monitoring.md',
  },
  {
    name: 'bus',
    measures:
      'the embedded bus alone: records/s acknowledged and send latency (p50/p99) with 1 and 16 concurrent senders of 100-record batches, in memory, on disk without fsync and on disk with fsync (group commit); appended to bench/results/embedded-bus.md',
  },
  {
    name: 'e2e',
    measures:
      'the whole pipeline in embedded mode under load: agent runs through the real OTel SDK at 500 and 2,000 spans/s (accepted, all scored or not, export → scores queryable p50/p95/p99), then 3,000 runs at once (accepted and scored spans/s); `npm run bench:e2e -- kafka` does the same on Kafka + ClickHouse; appended to bench/results/e2e.md',
  },
  {
    name: 'sandbox',
    measures: 'the code sandbox under hostile checks: peak memory of its processes while a check allocates 4 x 1 GB typed arrays, and the time for 20 units when one of their two code checks never settles',
  },
];

const root = join(import.meta.dirname, '..');
const failed: string[] = [];
for (const { name, measures } of BENCHMARKS) {
  console.log(`\n== bench:${name} ==\n${measures}\n`);
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run-ts.mjs'), join(root, 'bench', `${name}.ts`), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error(`bench:${name} exited with ${r.status}`);
    failed.push(name);
  }
}
console.log(failed.length === 0 ? `\nbench: ${BENCHMARKS.length} benchmarks ran` : `\nbench: failed: ${failed.join(', ')}`);
process.exitCode = failed.length === 0 ? 0 : 1;
