// Issue 22: a restart of the assembler and scorer (Kafka + ClickHouse, one process per service, the
// built dist/) with a backlog of 300,000 spans (30,000 runs of 10) in the spans topic: the
// assembler's and scorer's peak RSS, the drain time, and the time until a trace sent then is scored
// within a second again. The scenario is test/helpers/kafka-backlog-restart.ts (the e2e test runs
// it with a smaller backlog); uses the running Kafka and ClickHouse, like the tests.
// `npm run build && npm run bench:backlog [-- --traces 30000]`; appended to bench/results/backlog.md.
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { runKafkaBacklogRestart } from '../test/helpers/kafka-backlog-restart.ts';

const at = process.argv.indexOf('--traces');
const traces = at >= 0 ? Number(process.argv[at + 1]) : 30_000;
const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' ');
const load: number[] = [];
const sampler = setInterval(() => load.push(loadavg()[0]), 10_000);
const r = await runKafkaBacklogRestart({ traces, drainTimeoutMs: 900_000 });
clearInterval(sampler);
const exact = r.scoreRows === r.tracesSent && r.scoredUnits === r.tracesSent && r.units === r.tracesSent;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
// Probes sent during the drain wait behind it; those after it show the latency the pipeline is back to.
const after = r.probeMs.slice(1).sort((a, b) => a - b);
const probes = `first ${s(r.probeMs[0])}${after.length ? `; then ${after.length}: median ${s(after[Math.floor(after.length / 2)])}, max ${s(after[after.length - 1])}` : ''}`;
const table = [
  `## ${new Date().toISOString()} – Kafka + ClickHouse, restart with ${r.spansInBacklog.toLocaleString('en-US')} spans behind, ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Collector, assembler and scorer as processes of their own (dist/); the backlog sent through the collector (${r.tracesSent - 1 - r.probeMs.length} runs of 10 spans, OTLP/protobuf, 4 senders, ${s(r.fillMs)}) while assembler and scorer were stopped. 1-min load average ${loadBefore.split(' ')[0]} at start, ${load.length ? `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}` : 'n/a'} during the run (5/15-min at start: ${loadBefore.split(' ').slice(1).join(' / ')}).`,
  '',
  '| spans topic lag at restart | drain (restart → all scored) | session router behind at the drain | restart → a new trace scored < 1 s | probes (send → scored) | assembler RSS peak | scorer RSS peak | exactly once |',
  '|---:|---:|---:|---:|---|---:|---:|---|',
  `| ${r.lagAtRestart.toLocaleString('en-US')} | ${s(r.drainMs)} | ${r.routerLagAtDrain.toLocaleString('en-US')} units | ${s(r.subSecondAfterMs)} | ${probes} | ${r.assemblerMaxRssMb} MB | ${r.scorerMaxRssMb} MB | ${exact ? '✓' : '✗'} ${r.scoreRows} score rows, ${r.scoredUnits} units scored, ${r.units} units of ${r.tracesSent} sent |`,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'backlog.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# Restart under a backlog\n\nAssembler and scorer started again with a backlog in the spans topic: memory, drain, recovery of latency.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
process.exit(exact ? 0 : 1);
