// How long one large export holds the collector's event loop: 10,000-span requests (about 6 MB of
// OTLP/JSON, the shape of test/e2e/large-traces.test.ts) sent to an in-process collector over
// OTLP/HTTP JSON, OTLP/HTTP protobuf and OTLP/gRPC, while a 1 ms timer measures the longest gap
// between its ticks (wall) and the CPU this process used in that gap; and the synchronous
// stages alone (decode, conversion) timed apart. `npm run bench:collector-blocking`
// (`BENCH_REQUESTS`, default 5 per transport). Profile it with
// `node --cpu-prof --cpu-prof-dir=.cache/prof bin/run-ts.mjs bench/collector-blocking.ts`.
import { credentials, Client, Metadata } from '@grpc/grpc-js';
import { request } from 'node:http';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import type { Producer } from '../shared/adapters/bus/index.ts';
import { createCollector } from '../services/collector/src/create-collector.ts';
import { decodeTraceRequestJson } from '../services/collector/src/otlp/decode-json.ts';
import { decodeTraceRequestProtobuf } from '../services/collector/src/otlp/decode-protobuf.ts';
import { opentelemetry } from '../services/collector/src/generated/otlp.js';
import { traceRequestToMessages } from '../services/collector/src/pipeline.ts';
import { encodeTraceRequest } from '../services/collector/src/testing/otlp-builders.ts';
import { largeTraceExport } from '../test/helpers/large-trace-export.ts';

const SPANS = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5);
const log = createSilentLogger();

const traceId = 'ab'.repeat(16);
const jsonText = largeTraceExport(traceId, 'wide', 1, SPANS + 1);
const protobuf = Buffer.from(encodeTraceRequest(JSON.parse(jsonText) as Record<string, unknown>));

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

/** The longest gap between two ticks of a 1 ms timer, as wall time and as this process's CPU time. */
function watchLoop() {
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  let maxWallMs = 0;
  let maxCpuMs = 0;
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    maxWallMs = Math.max(maxWallMs, wall - lastWall);
    maxCpuMs = Math.max(maxCpuMs, Math.min(wall - lastWall, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000));
    lastWall = wall;
    lastCpu = cpu;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return { maxWallMs, maxCpuMs };
    },
  };
}

function postHttp(url: string, contentType: string, body: Buffer | string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function postGrpc(client: Client, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      new Metadata(),
      (err) => (err ? reject(err) : resolve()),
    );
  });
}

function timeIt(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const collector = createCollector({
  config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 64 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: SPANS } },
  producer,
  log,
});
await collector.start();
const grpc = new Client(collector.grpcAddress(), credentials.createInsecure(), { 'grpc.max_send_message_length': 64 * 1024 * 1024 });

console.log(`collector blocking bench: ${SPANS} spans per request, JSON ${(jsonText.length / 1e6).toFixed(1)} MB, protobuf ${(protobuf.length / 1e6).toFixed(1)} MB, ${REQUESTS} requests per transport`);
const stages: Array<[string, () => unknown]> = [
  ['JSON decode (JSON.parse and every span)', () => decodeTraceRequestJson(jsonText)],
  ['JSON.parse alone (not sliced)', () => JSON.parse(jsonText) as unknown],
  ['protobuf decode, whole message at once (protobufjs)', () => opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(protobuf)],
  ['protobuf decode to plain values, at once', () => decodeTraceRequestProtobuf(protobuf)],
  ['protobuf decode and conversion, at once', () => traceRequestToMessages(decodeTraceRequestProtobuf(protobuf), { maxAttributeBytes: 1024 * 1024, receivedAtMs: 0 })],
];
for (const [name, fn] of stages) {
  const times = Array.from({ length: REQUESTS }, () => timeIt(fn));
  console.log(`  ${name.padEnd(44)} median ${median(times).toFixed(0).padStart(4)} ms`);
}

const transports: Array<[string, () => Promise<unknown>]> = [
  ['OTLP/HTTP JSON', () => postHttp(`${collector.httpAddress()}/v1/traces`, 'application/json', jsonText)],
  ['OTLP/HTTP protobuf', () => postHttp(`${collector.httpAddress()}/v1/traces`, 'application/x-protobuf', protobuf)],
  ['OTLP/gRPC', () => postGrpc(grpc, protobuf)],
];
for (const [name, send] of transports) {
  const walls: number[] = [];
  const cpus: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const loop = watchLoop();
    const t0 = performance.now();
    await send();
    totals.push(performance.now() - t0);
    const { maxWallMs, maxCpuMs } = loop.stop();
    walls.push(maxWallMs);
    cpus.push(maxCpuMs);
  }
  console.log(
    `  ${name.padEnd(20)} request ${median(totals).toFixed(0).padStart(4)} ms; longest block median ${median(walls).toFixed(0).padStart(4)} ms wall / ${median(cpus).toFixed(0).padStart(4)} ms CPU, worst ${Math.max(...walls).toFixed(0)} ms wall / ${Math.max(...cpus).toFixed(0)} ms CPU`,
  );
}
grpc.close();
await collector.shutdown();
console.log(`  (${produced} records produced)`);
