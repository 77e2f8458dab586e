// Project B's export → scored latency, before and after project A exports the
// attack (10,000 root-less spans, each of its own trace, one OTLP/JSON export of ~2.9 MB), at the
// default settings. The whole pipeline in this process (embedded: in-process bus + DuckDB; with
// `--kafka`: the running Kafka + ClickHouse, like the tests). B's probes are sent one after another,
// each waited for (at most --wait-ms, default 20 s) until its score is in the store. `--direct`:
// A's spans are produced straight to the spans topic, past the collector's share (as a second
// collector, or one just restarted, would let them through): the assembler's own share acts alone.
// `node bin/run-ts.mjs bench/project-shares.ts [-- --kafka] [--direct] [--probes 5]`; prints one JSON line.
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { genAiRunsExport } from '../test/helpers/genai-run-export.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../test/helpers/infra.ts';
import { startPipeline } from '../test/helpers/pipeline-harness.ts';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const kafka = process.argv.includes('--kafka');
const direct = process.argv.includes('--direct');
const probes = arg('--probes', 5);
const waitMs = arg('--wait-ms', 20_000);
const FLOOD_SPANS = 10_000;

function rootlessExport(n: number): string {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: n }, () => ({
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    parentSpanId: randomBytes(8).toString('hex'),
    name: 'chat flood',
    kind: 3,
    startTimeUnixNano: String(nowNs),
    endTimeUnixNano: String(nowNs + 1_000_000n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    status: {},
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'flood' } }] }, scopeSpans: [{ scope: { name: 'flood' }, spans }] }] });
}

const env: Record<string, string> = kafka ? { TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('bench_shares') } : {};
const h = await startPipeline({ ...env, TRACECHECK_CHECKS: 'task_completed', TRACECHECK_TRACE_GRACE_MS: '2000' });
const store = h.pipeline.store!;
const collector = h.pipeline.collectorUrl();
const keyA = (await h.pipeline.keyring!.create('flooder', 'ingest')).key;
const keyB = (await h.pipeline.keyring!.create('bystander', 'ingest')).key;
const post = (key: string, body: string) => fetch(`${collector}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });

/** A's spans as the collector would have written them, each of project "flooder", straight to the spans topic. */
async function produceDirect(body: string): Promise<void> {
  const { resourceSpans } = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string; parentSpanId: string; startTimeUnixNano: string; endTimeUnixNano: string }> }> }> };
  const messages = resourceSpans[0].scopeSpans[0].spans.map((s) => {
    const envelope = { schema_version: 1, kind: 'span', project: 'flooder', trace_id: s.traceId, span_id: s.spanId, parent_span_id: s.parentSpanId, name: 'chat flood', span_kind: 3, start_time_unix_nano: s.startTimeUnixNano, end_time_unix_nano: s.endTimeUnixNano, status: { code: 0 }, service_name: 'flood', scope: { name: 'flood' }, attributes: {}, resource_attributes: {}, events: [], dropped_attributes_count: 0, genai: { operation: 'chat' }, received_at_ms: Date.now() };
    return { key: s.traceId, value: JSON.stringify(envelope) };
  });
  const producer = h.pipeline.bus.createProducer();
  await producer.start();
  await producer.send(h.topics.spans, messages);
  await producer.shutdown();
}

/** ms from B's export to its score, or null past waitMs. */
async function probe(): Promise<number | null> {
  const run = genAiRunsExport(1);
  const t0 = Date.now();
  const res = await post(keyB, run.body);
  if (res.status !== 200) throw new Error(`B's export was answered ${res.status}: ${await res.text()}`);
  while (Date.now() - t0 < waitMs) {
    if ((await store.queryScores({ project: 'bystander', unitId: run.ids[0] })).length > 0) return Date.now() - t0;
    await new Promise((done) => setTimeout(done, 10));
  }
  return null;
}

try {
  await probe();
  const before: Array<number | null> = [];
  for (let i = 0; i < probes; i++) before.push(await probe());
  const body = rootlessExport(FLOOD_SPANS);
  let floodAnswer = 'produced to the bus';
  if (direct) await produceDirect(body);
  else {
    const flood = await post(keyA, body);
    floodAnswer = `${flood.status} ${flood.headers.get('retry-after') ?? ''}`.trim();
    await flood.text();
  }
  const after: Array<number | null> = [];
  for (let i = 0; i < probes; i++) after.push(await probe());
  process.stdout.write(
    `${JSON.stringify({ mode: kafka ? 'kafka+clickhouse' : 'embedded', direct, floodSpans: FLOOD_SPANS, floodBytes: body.length, floodAnswer, beforeMs: before, afterMs: after, waitMs, load1m: loadavg()[0].toFixed(1), cores: cpus().length })}\n`,
  );
} finally {
  await h.stop();
}
