// How long one 19 MB OTLP/JSON export stalls the collector's process: a collector configured as
// `tracecheck up` configures it (the default conversion workers, redaction on, records parsed for
// the in-process bus) takes the export over OTLP/HTTP while perf_hooks.monitorEventLoopDelay
// (1 ms resolution) records the event loop's delays; the longest delay is the stall.
// `npm run bench:collector-json-stall` (`BENCH_REQUESTS`, default 5; `TRACECHECK_COLLECTOR_WORKERS`
// to compare with conversion on the main thread).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Producer } from '../shared/adapters/bus/index.ts';
import { loadConfig } from '../shared/runtime/config/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createCollector } from '../services/collector/src/create-collector.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5);
const SPANS = 7_500;
const config = loadConfig(process.env);

/** One export of SPANS model-call spans, each with about 2 kB of dialog: 19 MB of OTLP/JSON. */
function export19Mb(): string {
  const traceId = 'cd'.repeat(16);
  const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });
  const spans = Array.from({ length: SPANS }, (_, i) => ({
    traceId,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    ...(i === 0 ? {} : { parentSpanId: '0000000000000001' }),
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_500_000n + BigInt(i) * 1_000_000n),
    attributes: [
      attr('gen_ai.operation.name', 'chat'),
      attr('gen_ai.request.model', 'gpt-4o'),
      attr('gen_ai.usage.input_tokens', 10),
      attr('gen_ai.usage.output_tokens', 5),
      attr('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `question ${i}: ${'where is my parcel? '.repeat(50)}` }] }])),
      attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${i}: ${'it is on its way. '.repeat(40)}` }], finish_reason: 'stop' }])),
    ],
    status: {},
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [attr('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });
}

/** Sent by curl, a process of its own: a client in this process would stall the loop measured while it encodes and writes the body. */
function post(url: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', 'Content-Type: application/json', '--data-binary', `@${file}`, url], (err: Error | null, stdout: string) => (err ? reject(err) : resolve(Number(stdout))));
  });
}

let produced = 0;
const producer: Producer = {
  name: 'bench-discard',
  start: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
  send(_topic, messages) {
    produced += messages.length;
    return Promise.resolve();
  },
};

const body = export19Mb();
const file = join(mkdtempSync(join(tmpdir(), 'tracecheck-bench-')), 'export.json');
writeFileSync(file, body);
const collector = createCollector({
  config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: config.limits, redaction: config.redaction, workers: config.collectorWorkers, parsedRecords: true },
  producer,
  log: createSilentLogger(),
});
await collector.start();
const url = `${collector.httpAddress()}/v1/traces`;
console.log(`collector JSON stall bench: ${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB of OTLP/JSON, ${SPANS} spans, workers ${config.collectorWorkers}, redaction ${config.redaction.mode}, ${REQUESTS} requests; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await post(url, file); // warm-up: the worker's modules, the JIT
// What the machine alone costs the loop (other processes, the scheduler), over as long as a request takes.
const idle = monitorEventLoopDelay({ resolution: 1 });
idle.enable();
await new Promise((resolve) => setTimeout(resolve, 2_000));
idle.disable();
console.log(`  idle 2 s, no request: event-loop delay max ${(idle.max / 1e6).toFixed(0)} ms, p99 ${(idle.percentile(99) / 1e6).toFixed(0)} ms`);
const maxes: number[] = [];
for (let i = 0; i < REQUESTS; i++) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const status = await post(url, file);
  const ms = performance.now() - t0;
  h.disable();
  maxes.push(h.max / 1e6);
  console.log(`  request ${i + 1}: ${status} in ${ms.toFixed(0)} ms; event-loop delay max ${(h.max / 1e6).toFixed(0)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(0)} ms, mean ${(h.mean / 1e6).toFixed(1)} ms`);
}
const sorted = [...maxes].sort((a, b) => a - b);
console.log(`  longest stall: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, worst ${sorted[sorted.length - 1].toFixed(0)} ms; load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${produced} records produced`);
await collector.shutdown();
