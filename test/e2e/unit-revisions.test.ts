import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '../../shared/adapters/bus/index.ts';
import type { Score, Unit } from '../../shared/contracts/schemas/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// Revisions, not rewrites, end to end in both modes: a trace is scored; a late span changes its
// final answer; revision 1 and 2 are both retrievable with their own scores, the latest is shown by
// default and the aggregates count the unit once. A span for the same trace id sent with another
// project's key changes nothing of it.

const MODES = [
  { name: 'embedded (in-process bus + DuckDB)', env: (): Record<string, string> => ({}) },
  {
    name: 'Kafka + ClickHouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_revisions') }),
  },
];

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const nanos = (ms: number): string => `${ms}000000`;

interface SpanSpec {
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  /** A model call: what it was sent and what it answered. */
  chat?: { input: Array<{ role: string; content: string }>; output: string };
}

function otlpJson(service: string, traceId: string, spans: readonly SpanSpec[]): string {
  const parts = (m: { role: string; content: string }) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] });
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', service)] },
        scopeSpans: [
          {
            scope: { name: 'revisions-test' },
            spans: spans.map((s) => ({
              traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.chat ? 3 : 1,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: s.chat
                ? [
                    str('gen_ai.operation.name', 'chat'),
                    str('gen_ai.request.model', 'mock'),
                    str('gen_ai.input.messages', JSON.stringify(s.chat.input.map(parts))),
                    str('gen_ai.output.messages', JSON.stringify([{ ...parts({ role: 'assistant', content: s.chat.output }), finish_reason: 'stop' }])),
                  ]
                : [],
              status: { code: 0 },
            })),
          },
        ],
      },
    ],
  });
}

const FIRST_ANSWER = 'It ships tomorrow.';
const LATE_ANSWER = "I'm sorry, but I can't help with that request.";

interface UnitBody {
  unit: Unit;
  scores: Array<Score & { unit_revision: number }>;
  revision: number;
  latest_revision: number;
}
interface RevisionsBody {
  unit_id: string;
  revisions: Array<{ revision: number; latest: boolean; span_count: number; changed: string[] | null; model_output_hash: string; scores: Array<Score & { unit_revision: number }> }>;
}

for (const mode of MODES) {
  describe(`unit revisions: ${mode.name}`, () => {
    let h: Harness;
    const env = mode.env();
    const keys = { shopIngest: '', shopRead: '', bankIngest: '', bankRead: '' };
    const dead: BusMessage[] = [];
    let stopDlq: () => Promise<void> = () => Promise.resolve();
    beforeAll(async () => {
      h = await startPipeline({ ...env, TRACECHECK_CHECKS: 'model_refusal' });
      const keyring = h.pipeline.keyring!;
      keys.shopIngest = (await keyring.create('shop', 'ingest')).key;
      keys.shopRead = (await keyring.create('shop', 'read')).key;
      keys.bankIngest = (await keyring.create('bank', 'ingest')).key;
      keys.bankRead = (await keyring.create('bank', 'read')).key;
      const dlq = `${h.topics.spans}.dlq`;
      await h.pipeline.bus.ensureTopics([dlq]);
      const consumer = h.pipeline.bus.createConsumer({ topic: dlq, groupId: uniqueName('e2e-revisions-dlq'), handle: (m) => Promise.resolve(void dead.push(m)) });
      await consumer.start();
      stopDlq = () => consumer.shutdown();
    }, 120_000);
    afterAll(async () => {
      await stopDlq();
      await h?.stop();
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });

    const send = async (key: string, body: string): Promise<void> => {
      const res = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${key}` }, body });
      expect(res.status).toBe(200);
    };
    const get = (key: string, path: string) => fetch(`${h.pipeline.apiUrl()}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    const json = async <T>(key: string, path: string): Promise<T> => {
      const res = await get(key, path);
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };

    it("keeps revision 1 when a late span changes the answer, shows revision 2 by default, counts the unit once, and gives another project's span with that trace id its own unit", async () => {
      const service = uniqueName('rev-agent');
      const traceId = hex(16);
      const root = hex(8);
      const t0 = Date.now() - 10_000;
      const question = { role: 'user', content: 'Where is my order #42?' };
      await send(
        keys.shopIngest,
        otlpJson(service, traceId, [
          { spanId: root, name: 'support-agent', startMs: t0, endMs: t0 + 1_000 },
          { spanId: hex(8), parentSpanId: root, name: 'chat mock', startMs: t0 + 100, endMs: t0 + 300, chat: { input: [question], output: FIRST_ANSWER } },
        ]),
      );
      const first = await waitFor(async () => {
        const res = await get(keys.shopRead, `/api/v1/units/${traceId}`);
        if (res.status !== 200) return null;
        const body = (await res.json()) as UnitBody;
        return body.scores.length === 1 ? body : null;
      }, { timeoutMs: 60_000, intervalMs: 200, description: 'revision 1 scored' });
      expect([first.revision, first.unit.model_output, first.unit.span_count]).toEqual([1, FIRST_ANSWER, 2]);
      expect(first.scores.map((s) => [s.check, s.unit_revision, s.passed])).toEqual([['model_refusal', 1, true]]);

      // A late span of the same trace (same project) re-opens it: its answer is the final one now.
      await send(
        keys.shopIngest,
        otlpJson(service, traceId, [
          { spanId: hex(8), parentSpanId: root, name: 'chat mock', startMs: t0 + 400, endMs: t0 + 900, chat: { input: [question, { role: 'assistant', content: FIRST_ANSWER }, { role: 'user', content: 'Cancel it.' }], output: LATE_ANSWER } },
        ]),
      );
      const latest = await waitFor(async () => {
        const body = await json<UnitBody>(keys.shopRead, `/api/v1/units/${traceId}`);
        return body.revision === 2 && body.scores.length === 1 ? body : null;
      }, { timeoutMs: 60_000, intervalMs: 200, description: 'revision 2 scored' });
      expect([latest.revision, latest.latest_revision, latest.unit.model_output, latest.unit.span_count]).toEqual([2, 2, LATE_ANSWER, 3]);
      expect(latest.scores.map((s) => [s.check, s.unit_revision, s.passed, s.project])).toEqual([['model_refusal', 2, false, 'shop']]);

      const earlier = await json<UnitBody>(keys.shopRead, `/api/v1/units/${traceId}?revision=1`);
      expect([earlier.revision, earlier.latest_revision, earlier.unit.model_output, earlier.unit.span_count]).toEqual([1, 2, FIRST_ANSWER, 2]);
      expect(earlier.scores.map((s) => [s.check, s.unit_revision, s.passed])).toEqual([['model_refusal', 1, true]]);

      const history = await json<RevisionsBody>(keys.shopRead, `/api/v1/units/${traceId}/revisions`);
      expect(history.revisions.map((r) => [r.revision, r.latest, r.span_count, r.changed, r.scores.map((s) => [s.unit_revision, s.passed])])).toEqual([
        [1, false, 2, null, [[1, true]]],
        [2, true, 3, ['model_output', 'messages', 'span_count'], [[2, false]]],
      ]);

      // Listings and aggregates see the unit once, as its latest revision. The scorer writes the
      // revision tables and the latest-row tables concurrently (acknowledged once both are stored),
      // so the unit page can show revision 2 a moment before the listings do.
      const scores = await waitFor(async () => {
        const body = await json<{ scores: Array<Score & { unit_revision: number }> }>(keys.shopRead, `/api/v1/scores?unit_id=${traceId}`);
        return body.scores.some((s) => s.unit_revision === 2) ? body : null;
      }, { timeoutMs: 30_000, intervalMs: 200, description: 'the scores listing at revision 2' });
      expect(scores.scores.map((s) => [s.check, s.unit_revision, s.passed])).toEqual([['model_refusal', 2, false]]);
      const units = await waitFor(async () => {
        const body = await json<{ units: Array<{ unit_id: string; span_count: number }> }>(keys.shopRead, `/api/v1/units?service=${service}`);
        return body.units.some((u) => u.span_count === 3) ? body : null;
      }, { timeoutMs: 30_000, intervalMs: 200, description: 'the units listing at revision 2' });
      expect(units.units.map((u) => [u.unit_id, u.span_count])).toEqual([[traceId, 3]]);
      const summary = await json<{ checks: Array<{ check: string; n: number; passed: number; total: number }> }>(keys.shopRead, `/api/v1/checks/summary?service=${service}`);
      expect(summary.checks.map((c) => [c.check, c.total, c.n, c.passed])).toEqual([['model_refusal', 1, 1, 0]]);

      // Another project's key sends a span with the same trace id: its own unit, named after its
      // project (issue 23: it was dead-lettered silently); the owner's unit does not change.
      await send(
        keys.bankIngest,
        otlpJson(service, traceId, [{ spanId: hex(8), name: 'chat mock', startMs: t0 + 950, endMs: t0 + 990, chat: { input: [question], output: 'Rewritten by another project.' } }]),
      );
      const banks = await waitFor(
        async () => {
          const res = await get(keys.bankRead, `/api/v1/units/${traceId}@bank`);
          return res.status === 200 ? ((await res.json()) as UnitBody) : null;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: "the other project's own unit" },
      );
      expect(banks.unit.model_output).toBe('Rewritten by another project.');
      expect(dead.find((m) => m.key === traceId)).toBeUndefined();
      expect((await get(keys.shopRead, `/api/v1/units/${traceId}@bank`)).status).toBe(404);
      expect((await get(keys.bankRead, `/api/v1/units/${traceId}`)).status).toBe(404);
      expect((await get(keys.bankRead, `/api/v1/units/${traceId}/revisions`)).status).toBe(404);
      const after = await json<RevisionsBody>(keys.shopRead, `/api/v1/units/${traceId}/revisions`);
      expect(after.revisions.map((r) => [r.revision, r.span_count, r.model_output_hash])).toEqual(history.revisions.map((r) => [r.revision, r.span_count, r.model_output_hash]));
      expect((await json<UnitBody>(keys.shopRead, `/api/v1/units/${traceId}`)).unit.model_output).toBe(LATE_ANSWER);
    });
  });
}
