// Collector throughput on one core: decode + normalize + produce, protobuf and JSON, on the
// in-process bus and on Kafka, against bare protobuf decode of the same payload in the same run.
// `npm run bench:collector` (Kafka from TRACECHECK_TEST_KAFKA_BROKERS, default 127.0.0.1:19092;
// skipped when unreachable). Results are appended to bench/results/collector.md.
// `npm run bench:collector -- --redaction`: only the in-process protobuf path without and with
// redaction, alternated over BENCH_ROUNDS rounds (default 5), medians and CPU per span, and the
// redaction step alone (issue 24: redaction at most +15% of the collector's CPU per span).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import * as busModule from '../shared/adapters/bus/index.ts';
import type { Bus, OutgoingMessage, Producer } from '../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createIngest } from '../services/collector/src/ingest.ts';
import { createRedaction } from '../services/collector/src/redact/create-redaction.ts';
import { traceRequestToMessages } from '../services/collector/src/pipeline.ts';
import { decodeTraceRequestJsonLazy } from '../services/collector/src/otlp/decode-json.ts';
import { decodeTraceRequestProtobuf, decodeTraceRequestProtobufLazy } from '../services/collector/src/otlp/decode-protobuf.ts';
import { opentelemetry } from '../services/collector/src/generated/otlp.js';
import { encodeTraceRequest, jsonTraceRequest, type SpanSpec } from '../services/collector/src/testing/otlp-builders.ts';

const SPANS_PER_EXPORT = 100;
const RUN_MS = Number(process.env.BENCH_RUN_MS ?? 1500);
const log = createSilentLogger();

function words(n: number, seed: number): string {
  const vocab = ['weather', 'Paris', 'forecast', 'rain', 'tomorrow', 'temperature', 'humidity', 'wind', 'the', 'is', 'and', 'please', 'check', 'booking', 'flight'];
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(vocab[(i * 7 + seed) % vocab.length]);
  return out.join(' ');
}

function span(i: number): SpanSpec {
  const trace = (i % 10).toString(16).padStart(32, 'a');
  const input = [
    { role: 'user', parts: [{ type: 'text', content: words(120, i) }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: `call_${i}`, name: 'get_weather', arguments: { city: 'Paris', days: 3 } }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: `call_${i}`, response: words(60, i + 1) }] },
  ];
  const output = [{ role: 'assistant', parts: [{ type: 'text', content: words(110, i + 2) }], finish_reason: 'stop' }];
  return {
    traceId: trace,
    spanId: (i + 1).toString(16).padStart(16, '0'),
    parentSpanId: 'f'.repeat(16),
    name: 'chat gpt-4o',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are a weather bot.' }]),
      'gen_ai.input.messages': JSON.stringify(input),
      'gen_ai.output.messages': JSON.stringify(output),
      'gen_ai.usage.input_tokens': 512,
      'gen_ai.usage.output_tokens': 90,
      'gen_ai.conversation.id': `conv_${i % 10}`,
      'server.address': 'api.openai.com',
    },
  };
}

const json = jsonTraceRequest(Array.from({ length: SPANS_PER_EXPORT }, (_, i) => span(i)), {
  'service.name': 'weather-agent',
  'service.version': '2.1.0',
  'deployment.environment.name': 'bench',
});
const protobuf = encodeTraceRequest(json);
const jsonText = JSON.stringify(json);
const jsonBytes = Buffer.from(jsonText);
const firstAttrs = span(0).attributes!;
const attrSizes = ['gen_ai.input.messages', 'gen_ai.output.messages'].map((k) => Buffer.byteLength(String(firstAttrs[k])));

async function measure(name: string, fn: () => unknown, concurrency = 1): Promise<number> {
  // A long warm-up: the JIT needs a while on a loaded machine, and the ratio is what we report.
  const warm = Date.now() + Number(process.env.BENCH_WARMUP_MS ?? 1000);
  while (Date.now() < warm) await fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = Date.now() + RUN_MS;
  // `concurrency` exports in flight at once, as concurrent clients would have against a broker.
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await fn();
        n++;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const rate = (n * SPANS_PER_EXPORT) / secs;
  console.log(`${name.padEnd(48)} ${Math.round(rate).toLocaleString('en-US').padStart(9)} spans/s`);
  return rate;
}

function memoryProducer(): { producer: Producer; start(): Promise<void>; close(): Promise<void> } {
  const factory = (busModule as Record<string, unknown>).createInMemoryBus as ((o: { log: typeof log }) => Bus) | undefined;
  if (factory) {
    const bus = factory({ log });
    const producer = bus.createProducer();
    return { producer, close: () => producer.shutdown(), start: () => producer.start() };
  }
  // Until shared/adapters/bus exports the in-process bus: an append-only array, which is what it does on send.
  const records: OutgoingMessage[] = [];
  const producer: Producer = {
    name: 'bench-memory',
    start: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    send(_topic, messages) {
      for (const m of messages) records.push(m);
      if (records.length > 100_000) records.length = 0;
      return Promise.resolve();
    },
  };
  return { producer, close: () => Promise.resolve(), start: () => Promise.resolve() };
}

function reachable(broker: string): Promise<boolean> {
  const [host, port] = broker.split(':');
  return new Promise((resolve) => {
    const s = connect({ host, port: Number(port) }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

async function kafkaProducer(brokers: string[], topic: string): Promise<{ producer: Producer; via: string; close(): Promise<void> }> {
  const factory = (busModule as Record<string, unknown>).createKafkaBus as ((o: { brokers: string[]; clientId: string; log: typeof log }) => Bus) | undefined;
  if (factory) {
    const bus = factory({ brokers, clientId: 'bench-collector', log });
    await bus.ensureTopics([topic]);
    const producer = bus.createProducer();
    await producer.start();
    return { producer, via: 'shared/adapters/bus createKafkaBus', close: () => producer.shutdown() };
  }
  const kafka = new Kafka({ clientId: 'bench-collector', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
  await admin.disconnect();
  const kp = kafka.producer({ allowAutoTopicCreation: false });
  await kp.connect();
  const producer: Producer = {
    name: 'bench-kafka',
    start: () => Promise.resolve(),
    shutdown: () => kp.disconnect(),
    async send(t, messages) {
      await kp.send({ topic: t, acks: -1, messages: messages.map((m) => ({ key: m.key, value: m.value })) });
    },
  };
  return { producer, via: 'kafkajs', close: () => kp.disconnect() };
}

function ingestWith(producer: Producer, topic: string, redact = false): ReturnType<typeof createIngest> {
  const redactor = redact ? createRedaction({ mode: 'redact', rules: [], key: 'bench-key-0123456789' }, undefined) : undefined;
  return createIngest({ producer, topic, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000, produceTimeoutMs: 30_000, retryAfterSeconds: 5, log, ...(redactor ? { redactor } : {}) });
}

async function fullRun(): Promise<void> {
  const loadBefore = load();
  console.log(`collector bench: ${SPANS_PER_EXPORT} spans per export, protobuf ${protobuf.length} B, JSON ${jsonBytes.length} B, message attributes ${attrSizes.join('/')} bytes (input/output)`);
  const results: Array<[string, number]> = [];
  const bare = await measure('bare protobuf decode (static protobufjs)', () => opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(protobuf));
  results.push(['bare protobuf decode', bare]);
  results.push(['protobuf decode → plain objects', await measure('protobuf decode → plain objects', () => decodeTraceRequestProtobuf(protobuf))]);

  // The floor under any normalizer that emits JSON envelopes: parsing the message attributes and
  // serializing the envelopes, measured on the same payload.
  const sample = traceRequestToMessages(decodeTraceRequestProtobuf(protobuf), { maxAttributeBytes: 1024 * 1024, receivedAtMs: 0 });
  const envelopes = sample.messages.map((m) => JSON.parse(m.value) as unknown);
  const messageAttrs = Array.from({ length: SPANS_PER_EXPORT }, (_, i) => span(i).attributes!).flatMap((a) => [String(a['gen_ai.input.messages']), String(a['gen_ai.output.messages'])]);
  results.push(['JSON.parse of the message attributes only', await measure('JSON.parse of the message attributes only', () => messageAttrs.forEach((t) => void JSON.parse(t)))]);
  results.push(['JSON.stringify of the envelopes only', await measure('JSON.stringify of the envelopes only', () => envelopes.forEach((e) => JSON.stringify(e)))]);

  const memory = memoryProducer();
  await memory.start();
  const memIngest = ingestWith(memory.producer, 'tracecheck.spans');
  results.push(['protobuf: decode+normalize+produce, in-process bus', await measure('protobuf: decode+normalize+produce, in-process', () => memIngest.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf)))]);
  results.push(['JSON: decode+normalize+produce, in-process bus', await measure('JSON: decode+normalize+produce, in-process', () => memIngest.exportTraces(() => decodeTraceRequestJsonLazy(jsonBytes)))]);
  // The same with redaction at its default (TRACECHECK_REDACTION=redact): its cost per span is the
  // difference with the protobuf row above (issue 24: at most 15%).
  const redactingIngest = ingestWith(memory.producer, 'tracecheck.spans', true);
  results.push(['protobuf: decode+redact+normalize+produce, in-process bus', await measure('protobuf: decode+redact+normalize+produce, in-process', () => redactingIngest.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf)))]);
  await memory.close();

  const brokers = (process.env.TRACECHECK_TEST_KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');
  let kafkaNote = '';
  if (await reachable(brokers[0])) {
    const topic = `bench_collector_${Date.now().toString(36)}`;
    const kafka = await kafkaProducer(brokers, topic);
    const kIngest = ingestWith(kafka.producer, topic);
    results.push([`protobuf: decode+normalize+produce, Kafka (${kafka.via}, acks=all, 8 in flight)`, await measure('protobuf: decode+normalize+produce, Kafka', () => kIngest.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf)), 8)]);
    results.push([`JSON: decode+normalize+produce, Kafka (${kafka.via}, acks=all, 8 in flight)`, await measure('JSON: decode+normalize+produce, Kafka', () => kIngest.exportTraces(() => decodeTraceRequestJsonLazy(jsonBytes)), 8)]);
    await kafka.close();
  } else {
    kafkaNote = `Kafka at ${brokers.join(',')} not reachable: Kafka rows skipped.`;
    console.log(kafkaNote);
  }

  const ratioRows = results.slice(4).map(([name, rate]) => `${name}: ${((rate / bare) * 100).toFixed(0)}% of bare decode`);
  for (const r of ratioRows) console.log(r);

  const table = results.map(([name, rate]) => `| ${name} | ${Math.round(rate).toLocaleString('en-US')} | ${name === 'bare protobuf decode' ? '100%' : `${((rate / bare) * 100).toFixed(0)}%`} |`).join('\n');
  appendResult('all rows', `| path | spans/s | vs bare decode |\n|---|---:|---:|\n${table}\n${kafkaNote ? `\n${kafkaNote}\n` : ''}\nLoad (1/5/15 min) ${loadBefore} before, ${load()} after; commit ${commit()}.\n`);
}

/**
 * CPU time of the process (all its threads) per span while `fn` runs until it has used `ms` of CPU,
 * and the wall-clock rate. Bounded by CPU rather than wall time: on a shared machine each row gets
 * the same amount of work whatever share of the cores the others leave it.
 */
async function cpuPerSpan(fn: () => unknown, ms: number): Promise<{ cpuUs: number; rate: number }> {
  let n = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const usedUs = (): number => {
    const u = process.cpuUsage(cpu);
    return u.user + u.system;
  };
  while (usedUs() < ms * 1000) {
    await fn();
    n++;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return { cpuUs: usedUs() / (n * SPANS_PER_EXPORT), rate: (n * SPANS_PER_EXPORT) / secs };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

/**
 * The two in-process protobuf rows, without and with redaction, alternated round by round so that
 * both see the same load on a shared machine; and the redaction step alone, on spans decoded
 * beforehand. CPU per span (process.cpuUsage) rather than wall time: other processes' share of the
 * cores does not count.
 */
async function redactionRun(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const loadBefore = load();
  const memory = memoryProducer();
  await memory.start();
  const plain = ingestWith(memory.producer, 'tracecheck.spans');
  const redacting = ingestWith(memory.producer, 'tracecheck.spans', true);
  const redactor = createRedaction({ mode: 'redact', rules: [], key: 'bench-key-0123456789' }, undefined);
  if (!redactor) throw new Error('redaction is off');
  // The step alone: a fresh decode (its strings are new each time, as in the collector) with and without it.
  const decodeThen = (redact: boolean) => (): void => {
    const req = decodeTraceRequestProtobuf(protobuf);
    if (!redact) return;
    for (const rs of req.resourceSpans) {
      redactor.resource(rs.resource, undefined);
      for (const ss of rs.scopeSpans) for (const sp of ss.spans) redactor.span(sp, undefined);
    }
  };
  const rows = {
    without: () => plain.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf)),
    with: () => redacting.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf)),
    decode: decodeThen(false),
    decodeRedact: decodeThen(true),
  };
  const warm = Number(process.env.BENCH_WARMUP_MS ?? 1000);
  for (const fn of Object.values(rows)) await cpuPerSpan(fn, warm);
  const seen: Record<keyof typeof rows, Array<{ cpuUs: number; rate: number }>> = { without: [], with: [], decode: [], decodeRedact: [] };
  const alone: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Every other round the other way round: a row measured second does not always inherit the first's garbage.
    const order: Array<keyof typeof rows> = r % 2 ? ['with', 'without', 'decodeRedact', 'decode'] : ['without', 'with', 'decode', 'decodeRedact'];
    for (const key of order) seen[key].push(await cpuPerSpan(rows[key], RUN_MS));
    const [w, d] = [seen.without[r], seen.with[r]];
    alone.push(seen.decodeRedact[r].cpuUs - seen.decode[r].cpuUs);
    console.log(`round ${r + 1}: without ${Math.round(w.rate)} spans/s ${w.cpuUs.toFixed(1)} µs CPU/span; with ${Math.round(d.rate)} spans/s ${d.cpuUs.toFixed(1)} µs; redaction step ${alone[r].toFixed(2)} µs; load ${load()}`);
  }
  await memory.close();
  const m = (key: keyof typeof rows, field: 'cpuUs' | 'rate'): number => median(seen[key].map((x) => x[field]));
  const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(0)}%`;
  const extraCpu = signed((m('with', 'cpuUs') / m('without', 'cpuUs') - 1) * 100);
  const extraWall = signed((m('without', 'rate') / m('with', 'rate') - 1) * 100);
  const loadAfter = load();
  const summary =
    `| path (median of ${rounds} alternated rounds of ${RUN_MS} ms of CPU) | spans/s | CPU µs per span |\n|---|---:|---:|\n` +
    `| protobuf: decode+normalize+produce, in-process bus | ${Math.round(m('without', 'rate')).toLocaleString('en-US')} | ${m('without', 'cpuUs').toFixed(1)} |\n` +
    `| protobuf: decode+redact+normalize+produce, in-process bus | ${Math.round(m('with', 'rate')).toLocaleString('en-US')} | ${m('with', 'cpuUs').toFixed(1)} |\n` +
    `| protobuf decode → plain objects | ${Math.round(m('decode', 'rate')).toLocaleString('en-US')} | ${m('decode', 'cpuUs').toFixed(1)} |\n` +
    `| protobuf decode → plain objects, then redactor.span | ${Math.round(m('decodeRedact', 'rate')).toLocaleString('en-US')} | ${m('decodeRedact', 'cpuUs').toFixed(1)} |\n\n` +
    `Redaction step alone: ${median(alone).toFixed(2)} µs CPU per span (median of the rounds' differences of the last two rows). ` +
    `Redaction in the collector: ${extraCpu} CPU per span (${extraWall} by spans/s; target at most +15%). Load (1/5/15 min) ${loadBefore} before, ${loadAfter} after; commit ${commit()}.\n`;
  console.log(summary);
  appendResult('redaction only (`--redaction`)', summary);
}

function appendResult(title: string, body: string): void {
  const dir = join(import.meta.dirname, 'results');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const file = join(dir, 'collector.md');
  const header = existsSync(file) ? '' : '# Collector benchmark\n\nSpans per second on one core (single-threaded loop; the machine is shared, so ±30%). Target: the full path at ≥30% of bare protobuf decode.\n\n';
  appendFileSync(
    file,
    `${header}## ${new Date().toISOString()} – ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}: ${title}\n\n` +
      `${SPANS_PER_EXPORT} spans per export; protobuf ${protobuf.length} B, JSON ${jsonBytes.length} B; message attributes ${attrSizes.join('/')} bytes (input/output).\n\n${body}\n`,
  );
  console.log(`appended to ${file}`);
}

if (process.argv.includes('--redaction')) await redactionRun();
else await fullRun();
