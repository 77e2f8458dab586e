import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage, Consumer } from '../../../shared/adapters/bus/index.ts';
import { testClickHouseUrl, uniqueName, waitFor } from '../../helpers/infra.ts';
import { largeTraceExport } from '../../helpers/large-trace-export.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';
import { startPrivateKafka, type PrivateKafka } from '../../helpers/private-servers.ts';
import { dropDatabase, topicRecords } from '../../helpers/score-counts.ts';

// Issue 22.1: a burst made the assembler's unit batch larger than the broker's message.max.bytes;
// Kafka refused it and the assembler sent the same set again every tick, for ever. Here a private
// broker takes at most 64 KB per request: the units of one tick, together several times that, must
// go out in several requests and all be scored, and one unit larger than the limit goes to the
// units' dead-letter topic once, with the reason, instead of holding the rest back.

const LIMIT = 65_536;
const TRACES = 30;
const SPANS = 10;
const HUGE_SPANS = 200; // a unit of about 200 KB; each of its spans is about 2 KB

interface Export {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: Array<{ key: string; value: { stringValue?: string } }> }> }> }>;
}

/** Each model call's answer made about 1 KB long: what a unit carries grows with it. */
function padded(e: Export): Export {
  for (const span of e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))) {
    for (const a of span.attributes) {
      if (a.key === 'gen_ai.output.messages') a.value = { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'a'.repeat(1_000) }], finish_reason: 'stop' }]) };
    }
  }
  return e;
}

async function query(sql: string): Promise<string> {
  const res = await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(sql)}`, { method: 'POST' });
  const text = await res.text();
  if (!res.ok) throw new Error(text);
  return text.trim();
}

describe('kafka bus: produce requests sized to the broker', () => {
  let kafka: PrivateKafka;
  let h: Harness;
  let dlq: Consumer;
  const dead: BusMessage[] = [];
  const database = uniqueName('sized');
  beforeAll(async () => {
    kafka = await startPrivateKafka({ serverProperties: { 'message.max.bytes': String(LIMIT), 'replica.fetch.max.bytes': String(LIMIT) } });
    h = await startPipeline({ TRACECHECK_KAFKA_BROKERS: kafka.brokers.join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: database, TRACECHECK_CHECKS: 'function_result_present' });
    dlq = h.pipeline.bus.createConsumer({ topic: `${h.topics.units}.dlq`, groupId: uniqueName('g_units_dlq'), handle: (m) => Promise.resolve(void dead.push(m)) });
    await dlq.start();
  }, 150_000);
  afterAll(async () => {
    await dlq?.shutdown();
    await h?.stop();
    await kafka?.destroy();
    await dropDatabase(testClickHouseUrl(), database);
  });

  it('publishes one tick of units in several requests, all scored once, and dead-letters the one unit over the limit once with the reason', async () => {
    const ids = Array.from({ length: TRACES }, () => randomBytes(16).toString('hex'));
    const huge = randomBytes(16).toString('hex');
    // In one request, so that their units are ready in the same tick.
    const exports = [...ids.map((id) => largeTraceExport(id, 'wide', 0, SPANS)), largeTraceExport(huge, 'wide', 0, HUGE_SPANS)].map((b) => padded(JSON.parse(b) as Export));
    const body = JSON.stringify({ resourceSpans: exports.flatMap((e) => e.resourceSpans) });
    const answer = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(200);

    const scored = async (): Promise<number> => Number(await query(`SELECT uniqExact(unit_id) FROM ${database}.scores WHERE unit_id IN (${ids.map((id) => `'${id}'`).join(',')})`).catch(() => '0'));
    await waitFor(async () => ((await scored()) === TRACES && dead.length >= 1) || undefined, { timeoutMs: 60_000, description: 'every unit scored and the huge one dead-lettered' });
    await sleep(2_000); // a loop would send again within a few ticks

    // Each unit on the topic once: no batch was sent again. Together several times the limit.
    expect(await topicRecords(kafka.brokers, h.topics.units)).toBe(TRACES);
    const seen: BusMessage[] = [];
    const reader = h.pipeline.bus.createConsumer({ topic: h.topics.units, groupId: uniqueName('g_units_reader'), handle: (m) => Promise.resolve(void seen.push(m)) });
    await reader.start();
    try {
      await waitFor(() => seen.length >= TRACES || undefined, { timeoutMs: 30_000, description: 'the units read back' });
    } finally {
      await reader.shutdown();
    }
    const total = seen.reduce((n, m) => n + Buffer.byteLength(m.value), 0);
    expect(total).toBeGreaterThan(3 * LIMIT);
    expect(new Set(seen.map((m) => m.key))).toEqual(new Set(ids));
    expect(Number(await query(`SELECT uniqExact(unit_id) FROM ${database}.scores WHERE unit_id = '${huge}'`))).toBe(0);

    expect(dead).toHaveLength(1);
    const [record] = dead;
    expect(record.key).toBe(huge);
    expect(record.headers['error-name']).toBe('RecordTooLargeError');
    expect(record.headers['original-topic']).toBe(h.topics.units);
    expect(record.headers['value-truncated']).toBe('true');
    expect(record.headers.error).toMatch(new RegExp(`^unit "${huge}" is oversized: \\d+ bytes encoded, over the ${LIMIT}-byte limit of the broker, topic or client; it can never be sent$`));
    expect(Number(record.headers['original-bytes'])).toBeGreaterThan(LIMIT);
    expect(Buffer.byteLength(record.value)).toBeLessThan(LIMIT);
    process.stdout.write(`sized batches: ${TRACES} units (${total} bytes) on a ${LIMIT}-byte broker, 1 dead-lettered (${record.headers['original-bytes']} bytes)\n`);
  }, 120_000);

  it("cuts a span record to the broker's limit before acknowledging it (it was acknowledged, then dead-lettered), and the trace is scored", async () => {
    // A root model call with about 120 KB of messages, each attribute under the collector's own cap
    // (TRACECHECK_MAX_ATTRIBUTE_BYTES) and the record under TRACECHECK_MAX_RECORD_BYTES (1 MB), but
    // twice the broker's 64 KB.
    const id = randomBytes(16).toString('hex');
    const e = JSON.parse(largeTraceExport(id, 'wide', 0, 1)) as Export;
    const [root] = e.resourceSpans[0].scopeSpans[0].spans;
    const text = (n: number) => JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `${n} `.repeat(10_000) }], finish_reason: 'stop' }]);
    root.attributes.push(...[1, 2, 3, 4, 5].map((n) => ({ key: `app.transcript.${n}`, value: { stringValue: text(n) } })));
    const answer = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(e) });
    expect([answer.status, await answer.text()]).toEqual([200, '{}']);
    await waitFor(async () => Number(await query(`SELECT uniqExact(unit_id) FROM ${database}.scores WHERE unit_id = '${id}'`).catch(() => '0')) === 1 || undefined, { timeoutMs: 60_000, description: 'the trace scored' });
    expect(await topicRecords(kafka.brokers, `${h.topics.spans}.dlq`)).toBe(0);
  }, 90_000);
});
