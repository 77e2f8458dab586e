import { randomBytes } from 'node:crypto';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { genAiRunsExport } from '../../helpers/genai-run-export.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';
import { report } from '../../helpers/score-counts.ts';
import { encodeTraceRequest } from '../../../services/collector/src/testing/otlp-builders.ts';

// Issue 35, item 2: the assembler stopped reading everyone's spans while it held
// TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES open traces, and one project's export of root-less spans
// (many trace ids, no root) held that many for TRACECHECK_TRACE_MAX_OPEN_MS: every other project's
// traces waited 300 s. Here the hold is 1,000 and project A's share of root-less traces 200: A's
// exports past its share are answered 429 + Retry-After, nothing of them reaches the bus, and
// project B's ordinary run is delayed by less than a second (its export → scored time after A's
// flood, against its own a moment before: ~0.4 s embedded, ~0.6 s on Kafka). On the code before the fix,
// A's exports are all taken (200) and B's run waits for A's traces to expire.

const HOLD_OPEN = 1_000;
const SHARE = 200;
/** The bound: how much longer B's run may take to be scored once A has flooded. */
const DELAY_AT_MOST_MS = 1_000;

/** One OTLP/JSON export of `n` spans, each of its own trace, each pointing at a parent never sent. */
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

/** The same export over OTLP/gRPC: the error it was answered with, or null. */
function exportGrpc(address: string, key: string, body: string): Promise<ServiceError | null> {
  const client = new Client(address, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${key}`);
  return new Promise<ServiceError | null>((resolve) => {
    client.makeUnaryRequest(
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      encodeTraceRequest(JSON.parse(body) as Record<string, unknown>),
      metadata,
      (err) => resolve(err ?? null),
    );
  }).finally(() => client.close());
}

async function post(collector: string, key: string, body: string): Promise<Response> {
  return fetch(`${collector}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body, signal: AbortSignal.timeout(30_000) });
}

const deployments: Array<[string, () => Record<string, string>]> = [
  ['in-process bus + DuckDB', () => ({})],
  ['Kafka + ClickHouse', () => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('project_shares') })],
];

describe.each(deployments)("one project's root-less flood never holds another project's scoring (%s)", (name, env) => {
  let h: Harness;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    h = await startPipeline({
      ...env(),
      TRACECHECK_CHECKS: 'task_completed',
      TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES: String(HOLD_OPEN),
      TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES: String(SHARE),
    });
    keyA = (await h.pipeline.keyring!.create('flooder', 'ingest')).key;
    keyB = (await h.pipeline.keyring!.create('bystander', 'ingest')).key;
  }, 180_000);
  afterAll(async () => {
    await h?.stop();
  });

  /** Sends one run with B's key; ms from its export to its score in the store. */
  async function scoredMsOfB(timeoutMs: number): Promise<number> {
    const run = genAiRunsExport(1);
    const t0 = Date.now();
    const res = await post(h.pipeline.collectorUrl(), keyB, run.body);
    expect(res.status).toBe(200);
    await waitFor(async () => (await h.pipeline.store!.queryScores({ project: 'bystander', unitId: run.ids[0] })).length === 1 || undefined, { timeoutMs, intervalMs: 10, description: `B's run ${run.ids[0]} scored` });
    return Date.now() - t0;
  }

  /** The median of three runs' times, one after another: a shared machine's noise is not A's doing. */
  async function medianScoredMsOfB(): Promise<number> {
    const ms: number[] = [];
    for (let i = 0; i < 3; i++) ms.push(await scoredMsOfB(10_000));
    return ms.sort((a, b) => a - b)[1];
  }

  it("answers A 429 past its share, and B's run is scored less than a second later than without A's flood", { timeout: 120_000 }, async () => {
    const collector = h.pipeline.collectorUrl();
    // Warm: the first run pays for the store's first writes.
    await scoredMsOfB(30_000);
    const baselineMs = await medianScoredMsOfB();

    // Within its share: taken.
    expect((await post(collector, keyA, rootlessExport(SHARE - 50))).status).toBe(200);
    // Past it: refused whole, to be retried later.
    const over = await post(collector, keyA, rootlessExport(100));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('5');
    expect(await over.text()).toContain(`is over its share of traces waiting for a root span: this export would make ${SHARE + 50} (share ${SHARE}, TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES)`);
    // The attack: more root-less traces in one export than the assembler holds before it stops reading.
    const flood = await post(collector, keyA, rootlessExport(HOLD_OPEN + 500));
    expect(flood.status).toBe(429);
    const overGrpc = await exportGrpc(h.pipeline.collectorGrpcAddress(), keyA, rootlessExport(HOLD_OPEN + 500));
    expect([overGrpc?.code, overGrpc?.details]).toEqual([status.RESOURCE_EXHAUSTED, expect.stringContaining(`this export would make ${SHARE - 50 + HOLD_OPEN + 500} (share ${SHARE}`)]);

    const afterFloodMs = await medianScoredMsOfB();
    report(`project shares (${name})`, { baselineMs, afterFloodMs });
    expect(afterFloodMs).toBeLessThan(baselineMs + DELAY_AT_MOST_MS);
    // B's own share is whole: as many root-less traces as A was allowed are taken.
    expect((await post(collector, keyB, rootlessExport(SHARE))).status).toBe(200);
  });
});
