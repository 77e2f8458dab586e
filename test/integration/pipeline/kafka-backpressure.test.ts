import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPipeline, type ServiceName } from '../../../cli/pipeline.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { startAll } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { largeTraceExport } from '../../helpers/large-trace-export.ts';
import { dropDatabase } from '../../helpers/score-counts.ts';

// Issue 22.2: on Kafka the collector answered 200 whatever the backlog, so a burst grew it without
// end. Now it answers 429 + Retry-After while the assembler's group is more than
// TRACECHECK_BACKLOG_MAX_RECORDS spans behind (measured on the broker), and 200 once it has caught
// up. The collector runs first alone, so the backlog is real and stays until the assembler starts.

const BOUND = 200;
const SPANS = 10;
const log = createSilentLogger();
const database = uniqueName('backpressure');
const id = randomBytes(4).toString('hex');
const topics = { spans: `bp.spans.${id}`, units: `bp.units.${id}`, scores: `bp.scores.${id}`, sessions: `bp.sessions.${id}` };
const groups = { assembler: `bp-assembler-${id}`, scorer: `bp-scorer-${id}`, sessions: `bp-sessions-${id}` };
const config = loadConfig({
  TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','),
  TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(),
  TRACECHECK_CLICKHOUSE_DATABASE: database,
  TRACECHECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'tracecheck-bp-')),
  TRACECHECK_OTLP_HTTP_PORT: '0',
  TRACECHECK_OTLP_GRPC_PORT: '0',
  TRACECHECK_METRICS_PORT: '0',
  TRACECHECK_TRACE_GRACE_MS: '300',
  TRACECHECK_LAG_INTERVAL_MS: '300',
  TRACECHECK_BACKLOG_MAX_RECORDS: String(BOUND),
  TRACECHECK_CHECKS: 'function_result_present',
});

async function start(services: ServiceName[]) {
  const pipeline = buildPipeline(config, log, new Set(services), { topics, groups });
  const stop = await startAll(pipeline.components, log);
  return { pipeline, stop };
}

/** One export of `n` new traces of SPANS spans each. */
function exportOf(n: number): { ids: string[]; body: string } {
  const ids = Array.from({ length: n }, () => randomBytes(16).toString('hex'));
  const parts = ids.map((t) => JSON.parse(largeTraceExport(t, 'wide', 0, SPANS)) as { resourceSpans: unknown[] });
  return { ids, body: JSON.stringify({ resourceSpans: parts.flatMap((p) => p.resourceSpans) }) };
}

async function post(url: string, body: string): Promise<{ status: number; retryAfter: string | null }> {
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
}

async function query(sql: string): Promise<number> {
  const res = await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(sql)}`, { method: 'POST' });
  const text = await res.text();
  if (!res.ok) throw new Error(text);
  return Number(text.trim());
}

describe('backpressure on Kafka', () => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await dropDatabase(testClickHouseUrl(), database);
  });

  it('answers 429 + Retry-After while the assembler is more than the bound behind, 200 once it caught up; a client honouring Retry-After gets every span scored once', async () => {
    const front = await start(['collector']);
    stops.push(front.stop);
    const url = front.pipeline.collectorUrl();
    const acknowledged: string[] = [];

    // A backlog over the bound, with no assembler running: the next exports are refused.
    const first = exportOf(Math.ceil((BOUND + 1) / SPANS));
    expect((await post(url, first.body)).status).toBe(200);
    acknowledged.push(...first.ids);
    const refused = await waitFor(
      async () => {
        const probe = exportOf(1);
        const answer = await post(url, probe.body);
        if (answer.status === 200) acknowledged.push(...probe.ids);
        return answer.status === 429 ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'a 429 from the collector' },
    );
    expect(refused.retryAfter).toBe('5');

    // The assembler and the scorer drain the backlog: 200 again.
    const back = await start(['assembler', 'scorer']);
    stops.push(back.stop);
    await waitFor(
      async () => {
        const probe = exportOf(1);
        const answer = await post(url, probe.body);
        if (answer.status === 200) acknowledged.push(...probe.ids);
        return answer.status === 200 || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300, description: 'a 200 again once the backlog drained' },
    );

    // An exporter that honours Retry-After, each export over the bound by itself (how many are
    // refused depends on how fast the assembler commits; each refused one is sent again).
    let retries = 0;
    for (let i = 0; i < 4; i++) {
      const batch = exportOf(Math.ceil((BOUND + 1) / SPANS));
      for (;;) {
        const answer = await post(url, batch.body);
        if (answer.status === 200) break;
        expect(answer.status).toBe(429);
        retries++;
        await sleep(Number(answer.retryAfter) * 1000);
      }
      acknowledged.push(...batch.ids);
    }

    const inList = acknowledged.map((t) => `'${t}'`).join(',');
    await waitFor(async () => (await query(`SELECT uniqExact(unit_id) FROM ${database}.scores WHERE unit_id IN (${inList})`)) === acknowledged.length || undefined, {
      timeoutMs: 60_000,
      description: 'every acknowledged trace scored',
    });
    await sleep(1_000);
    // Exactly once: one score row per trace (one check), nothing written twice.
    expect(await query(`SELECT count() FROM ${database}.scores WHERE unit_id IN (${inList})`)).toBe(acknowledged.length);
    expect(await query(`SELECT count() FROM ${database}.units FINAL WHERE unit_id IN (${inList}) AND span_count = ${SPANS}`)).toBe(acknowledged.length);
    process.stdout.write(`backpressure: ${acknowledged.length} traces acknowledged and scored once; ${retries} exports refused with 429 and retried after Retry-After\n`);
  }, 150_000);
});
