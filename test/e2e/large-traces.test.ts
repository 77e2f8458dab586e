import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage, Consumer } from '../../shared/adapters/bus/index.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { largeTraceRequests } from '../helpers/large-trace-export.ts';
import { waitFor } from '../helpers/infra.ts';
import { describeWatch, send, sendAndWatch, type UnitAnswer } from '../helpers/large-trace-watch.ts';

// One hostile trace must neither freeze the process nor crash assembly: /healthz is asked
// throughout and must always answer. How long the event loop is held (the delay the collector's
// and the API's clients wait) is measured against its budget by `npm run bench:large-traces`.

const MAX_SPANS = 10_000;
// The chain comes in the batches an OTel SDK sends (512 spans by default); the 130,000-span trace
// in 8 MB requests of 10,000 spans, the most the collector takes. The collector converts a request
// in slices with yields in between; what it cannot slice is JSON.parse of the body (20-30 ms for
// 8 MB standalone).
const SDK_BATCH = 500;
const LARGEST_REQUEST = 10_000;

describe('very large and duplicated traces (embedded pipeline)', () => {
  let h: Harness;
  let deadLetters: BusMessage[];
  let dlq: Consumer;
  beforeAll(async () => {
    h = await startPipeline({ TRACECHECK_MAX_SPANS_PER_TRACE: String(MAX_SPANS), TRACECHECK_CHECKS: 'function_result_present' });
    deadLetters = [];
    dlq = h.pipeline.bus.createConsumer({ topic: `${h.topics.spans}.dlq`, groupId: `dlq-${randomBytes(4).toString('hex')}`, handle: (m) => Promise.resolve(void deadLetters.push(m)) });
    await dlq.start();
  });
  afterAll(async () => {
    await dlq?.shutdown();
    await h?.stop();
  });

  async function watched(traceId: string, bodies: readonly string[]) {
    const w = await sendAndWatch(h, traceId, bodies);
    process.stdout.write(`${describeWatch(traceId, w)}\n`);
    return w;
  }

  it('a 30,000-span parent chain: the process keeps answering, the unit is kept to the cap and flagged truncated', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { unit, health } = await watched(traceId, largeTraceRequests(traceId, 'chain', 30_000, SDK_BATCH));
    expect(unit.span_count).toBe(MAX_SPANS + 1); // the first 10,000 to arrive and the root, which came last
    expect(unit.truncated).toBe(true);
    expect(unit.agent_name).toBe('runaway-agent');
    expect(unit.usage.input_tokens).toBe(10); // every span wraps the next: only the innermost one counts
    expect(unit.errors).toEqual([
      { type: 'tracecheck.span_limit', message: 'the trace had more records than the limit of 10000 spans per trace: 19999 spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)' },
    ]);
    expect(health.failed).toBe(0);
    expect(health.answered).toBeGreaterThan(0);
  });

  it('a 130,000-span wide trace: no crash, the unit is flagged truncated, nothing is dead-lettered', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { unit, health } = await watched(traceId, largeTraceRequests(traceId, 'wide', 130_000, LARGEST_REQUEST));
    expect(unit.span_count).toBe(MAX_SPANS + 1);
    expect(unit.truncated).toBe(true);
    expect(unit.errors.map((e) => e.message)).toEqual([
      'the trace had more records than the limit of 10000 spans per trace: 119999 spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)',
    ]);
    expect(health.failed).toBe(0);
    expect(deadLetters).toEqual([]);
  });

  it('a span id sent twice with different contents: both spans are kept and the unit says so; an exact re-send is kept once', async () => {
    const traceId = randomBytes(16).toString('hex');
    const toolSpan = (result: string) => ({
      traceId,
      spanId: 'aaaaaaaaaaaaaaaa',
      parentSpanId: 'bbbbbbbbbbbbbbbb',
      name: 'execute_tool lookup',
      kind: 1,
      startTimeUnixNano: '1700000000100000000',
      endTimeUnixNano: '1700000000200000000',
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'lookup' } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: result } },
      ],
      status: {},
    });
    const root = { traceId, spanId: 'bbbbbbbbbbbbbbbb', name: 'invoke_agent dup', kind: 1, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000300000000', attributes: [], status: {} };
    const body = (spans: object[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'hostile' }, spans }] }] });
    for (const spans of [[toolSpan('first')], [toolSpan('first')], [toolSpan('second')], [root]]) {
      const res = await send(`${h.pipeline.collectorUrl()}/v1/traces`, body(spans));
      expect(res.status).toBe(200);
    }
    const answer = await waitFor(
      async () => {
        const res = await send(`${h.pipeline.apiUrl()}/api/v1/units/${traceId}`);
        return res.status === 200 ? (JSON.parse(res.text) as UnitAnswer) : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: `unit ${traceId}` },
    );
    expect(answer.unit.span_count).toBe(3);
    expect(answer.unit.tool_calls.map((c) => [c.id, c.result])).toEqual([
      ['span:aaaaaaaaaaaaaaaa', 'first'],
      ['span:aaaaaaaaaaaaaaaa#2', 'second'],
    ]);
    expect(answer.unit.errors).toEqual([
      { span_id: 'aaaaaaaaaaaaaaaa', type: 'tracecheck.duplicate_span_id', message: 'span id aaaaaaaaaaaaaaaa arrived 2 times with different contents; every copy is kept' },
    ]);
  });
});
