// The assembler's memory with many open traces: 50,000 agent runs of 9 spans each (an invoke_agent
// root, four model calls, four tool executions), every span carrying one 1–2 KB message of real
// English prose (windows of this repository's README and docs/, so that it compresses like text and not like
// a repeated filler), fed as bus records (JSON, parsed like the assembler parses them) into the
// trace window with no root ended, so that every trace stays open. GC forced before each reading.
// Records are spilled to a directory under the OS temp directory, as the services do. Each reading
// is taken after two forced GCs a second apart (V8 returns freed pages to the OS in the background).
// `npm run bench:assembler-memory [-- --traces 50000]` (node --expose-gc); appended to bench/results/assembler-memory.md.
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanRecord } from '../shared/contracts/schemas/index.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseSpanEnvelope } from '../services/assembler/src/create-assembler.ts';
import { createHeldRecords } from '../services/assembler/src/held-records.ts';
import { createSpillStore } from '../services/assembler/src/spill-store.ts';
import { createTraceWindowHarness } from '../test/helpers/trace-window-harness.ts';

const i = process.argv.indexOf('--traces');
const TRACES = i >= 0 ? Number(process.argv[i + 1]) : 50_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:assembler-memory)');

// The README and the pages it grew into (docs/), so that the text is as long and varied as before the split.
const docs = join(import.meta.dirname, '..', 'docs');
const prose = [join(import.meta.dirname, '..', 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => join(docs, f))]
  .map((f) => readFileSync(f, 'utf8'))
  .join(' ')
  .replace(/\s+/g, ' ');
let seed = 7;
const rand = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
/** A 1–2 KB window of that prose at a random place. */
function text(): string {
  const len = 1_024 + Math.floor(rand() * 1_024);
  const at = Math.floor(rand() * (prose.length - len));
  return prose.slice(at, at + len);
}
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

function spansOf(t: number): SpanRecord[] {
  const traceId = `${hex(t, 16)}${hex(t * 7919, 16)}`.slice(0, 32);
  const id = (k: number): string => hex(t * 16 + k + 1, 16);
  const startMs = 1_790_000_000_000 + t;
  const base = (k: number, name: string, parent: number | null): Omit<SpanRecord, 'genai'> => ({
      schema_version: 1,
      kind: 'span',
      trace_id: traceId,
      span_id: id(k),
      ...(parent === null ? {} : { parent_span_id: id(parent) }),
      name,
      span_kind: 1,
      start_time_unix_nano: `${startMs + k}000000`,
      end_time_unix_nano: `${startMs + k + 400}000000`,
      status: { code: 0 },
      service_name: 'booking-api',
      environment: 'prod',
      scope: { name: 'tracecheck-agent', version: '0.1.0' },
      attributes: { 'gen_ai.system': 'openai' },
      resource_attributes: { 'service.name': 'booking-api', 'deployment.environment.name': 'prod' },
      events: [],
      dropped_attributes_count: 0,
      received_at_ms: startMs + 500,
    });
  const spans: SpanRecord[] = [
    { ...base(0, 'invoke_agent booking', null), genai: { family: 'otel_genai', operation: 'invoke_agent', agent_name: 'booking', agent_version: 'v1', input_messages: [{ role: 'user', content: text() }] } },
  ];
  for (let k = 0; k < 4; k++) {
    const call = { id: `call_${k}`, type: 'function' as const, function: { name: 'check_availability', arguments: '{"date":"2026-12-01","people":2}' } };
    spans.push({
      ...base(1 + 2 * k, 'chat booking-model', 0),
      genai: { family: 'otel_genai', operation: 'chat', request_model: 'booking-model', response_model: 'booking-model', usage: { input_tokens: 900, output_tokens: 40 }, output_messages: [{ role: 'assistant', content: text(), tool_calls: [call] }] },
    });
    spans.push({ ...base(2 + 2 * k, 'execute_tool check_availability', 0), genai: { family: 'otel_genai', operation: 'execute_tool', tool_execution: { name: 'check_availability', call_id: `call_${k}`, arguments: call.function.arguments, result: text() } } });
  }
  return spans;
}

async function reading() {
  gc!();
  await sleep(1_000);
  gc!();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external + m.arrayBuffers };
}

const before = await reading();
const spill = createSpillStore({ dir: join(tmpdir(), 'tracecheck-bench-spill') });
const buffer = createTraceWindowHarness({ graceMs: 60_000, maxOpenMs: 3_600_000, retainClosedMs: 3_600_000, records: createHeldRecords(spill) });
let offset = 0n;
let bytes = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let t = 0; t < TRACES; t++) {
  // Nothing is taken out until every trace is in (the assembler's tick would close them after the grace).
  for (const s of spansOf(t)) {
    const value = JSON.stringify(s);
    bytes += value.length;
    buffer.add(parseSpanEnvelope(value), 0, offset, 0);
    offset += 1n;
  }
}
const cpuMs = (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000;
const wallMs = performance.now() - t0;
if (buffer.openCount() !== TRACES) throw new Error(`expected ${TRACES} open traces, got ${buffer.openCount()}`);
const after = await reading();
const disk = spill.stats();
// Assembly still sees every span: every trace taken out whole (forced, as at shutdown).
const c1 = process.cpuUsage();
const ready = buffer.takeReady(3_600_001, true);
const readCpuMs = (process.cpuUsage(c1).user + process.cpuUsage(c1).system) / 1000;
const spansBack = ready.reduce((n, r) => n + r.spans.length, 0);
if (spansBack !== TRACES * 9) throw new Error(`expected ${TRACES * 9} spans back, got ${spansBack}`);
spill.close();

const mb = (n: number): string => `${(n / 2 ** 20).toFixed(0)} MB`;
const kbPer = (n: number): string => `${(n / TRACES / 1024).toFixed(1)} KB`;
const table = [
  `## ${new Date().toISOString()} – ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `${TRACES.toLocaleString('en-US')} open traces of 9 spans (${mb(bytes)} of span envelopes as JSON, ${(bytes / TRACES / 9).toFixed(0)} B a span), fed in ${(wallMs / 1000).toFixed(1)} s (${cpuMs.toFixed(0)} ms CPU, ${((cpuMs * 1000) / (TRACES * 9)).toFixed(0)} µs a span: parse + add); all taken back out in ${readCpuMs.toFixed(0)} ms CPU (${((readCpuMs * 1000) / (TRACES * 9)).toFixed(0)} µs a span).`,
  `Records spilled: ${disk.segments} segment files, ${mb(disk.diskBytes)} on disk. 1-min load average ${loadavg()[0].toFixed(1)} at the end.`,
  '',
  '| | total (minus the empty process) | per open trace |',
  '|---|---:|---:|',
  `| RSS | ${mb(after.rss)} (${mb(after.rss - before.rss)}) | ${kbPer(after.rss - before.rss)} |`,
  `| JS heap used | ${mb(after.heap)} (${mb(after.heap - before.heap)}) | ${kbPer(after.heap - before.heap)} |`,
  `| JS heap reserved | ${mb(after.heapTotal)} (${mb(after.heapTotal - before.heapTotal)}) | ${kbPer(after.heapTotal - before.heapTotal)} |`,
  `| external + array buffers | ${mb(after.external)} (${mb(after.external - before.external)}) | ${kbPer(after.external - before.external)} |`,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'assembler-memory.md');
if (!existsSync(out)) appendFileSync(out, '# Assembler memory\n\nOpen traces held by the trace window (services/assembler/src/trace-window.ts).\n\n');
appendFileSync(out, `${table}\n`);
console.log(table);
