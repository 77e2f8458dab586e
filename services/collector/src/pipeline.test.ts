import { describe, expect, it } from 'vitest';
import { SpanEnvelopeSchema } from '../../../shared/contracts/schemas/index.ts';
import { decodeLogsRequestJson, decodeTraceRequestJson } from './otlp/decode-json.ts';
import { decodeLogsRequestProtobuf, decodeTraceRequestProtobuf } from './otlp/decode-protobuf.ts';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonTraceRequest, type SpanSpec } from './testing/otlp-builders.ts';
import { logsRequestToMessages, traceRequestToMessages } from './pipeline.ts';
import { createRedactor } from './redact/redactor.ts';

const options = { maxAttributeBytes: 1024 * 1024, receivedAtMs: 1 };
const GOOD = '1111111111111111';

/** [a valid span, `spec`] through both decoders and the pipeline: what was produced and the partial answer. */
function convert(spec: SpanSpec, opts: Parameters<typeof traceRequestToMessages>[1] = options) {
  const json = jsonTraceRequest([{ spanId: GOOD }, spec]);
  const results = [decodeTraceRequestJson(JSON.stringify(json)), decodeTraceRequestProtobuf(encodeTraceRequest(json))].map((req) => {
    const c = traceRequestToMessages(req, opts);
    for (const m of c.messages) {
      expect(SpanEnvelopeSchema.safeParse(JSON.parse(m.value)).success).toBe(true);
      // What the in-process bus hands the assembler instead of the text: the same record, key for key.
      expect(JSON.stringify(m.parsed)).toBe(JSON.stringify(SpanEnvelopeSchema.parse(JSON.parse(m.value))));
    }
    return { produced: c.messages.map((m) => (JSON.parse(m.value) as { span_id: string }).span_id), rejected: c.rejected, errorMessage: c.errorMessage };
  });
  expect(results[1]).toEqual(results[0]);
  return results[0];
}

describe('span timestamps (both encodings)', () => {
  it('rejects a missing start or end, and an end before the start, per span', () => {
    expect(convert({ start: '0' })).toEqual({ produced: [GOOD], rejected: 1, errorMessage: '1 rejected: span eee19b7ec3c1b174: startTimeUnixNano is 0 (missing)' });
    expect(convert({ end: '0' })).toEqual({ produced: [GOOD], rejected: 1, errorMessage: '1 rejected: span eee19b7ec3c1b174: endTimeUnixNano is 0 (missing: the span has not ended)' });
    expect(convert({ start: '1700000000000000001', end: '1700000000000000000' })).toEqual({
      produced: [GOOD],
      rejected: 1,
      errorMessage: '1 rejected: span eee19b7ec3c1b174: endTimeUnixNano 1700000000000000000 is before startTimeUnixNano 1700000000000000001',
    });
    expect(convert({ start: '999', end: '1700000000000000000' })).toEqual({ produced: [GOOD, 'eee19b7ec3c1b174'], rejected: 0, errorMessage: '' });
  });

  it('accepts an instant span and the whole uint64 range', () => {
    expect(convert({ start: '1700000000000000000', end: '1700000000000000000' }).rejected).toBe(0);
    expect(convert({ start: '1', end: '18446744073709551615' }).rejected).toBe(0);
  });
});

describe('span times far in the future: rejected per span past the allowed skew', () => {
  // Received at 2023-11-14T22:13:20Z (1,700,000,000,000 ms); one hour of skew allowed.
  const skewed = { ...options, receivedAtMs: 1_700_000_000_000, maxFutureSkewMs: 3_600_000 };
  const LATEST = '1700003600000000000';

  it('accepts a time up to the bound, rejects one nanosecond past it, naming the field (both encodings)', () => {
    expect(convert({ start: '1700000000000000000', end: LATEST }, skewed)).toEqual({ produced: [GOOD, 'eee19b7ec3c1b174'], rejected: 0, errorMessage: '' });
    expect(convert({ start: '1700000000000000000', end: '1700003600000000001' }, skewed)).toEqual({
      produced: [GOOD],
      rejected: 1,
      errorMessage: `1 rejected: span eee19b7ec3c1b174: endTimeUnixNano 1700003600000000001 is ahead of the collector's clock by more than the allowed skew (latest accepted ${LATEST})`,
    });
  });

  it('the attack: a span in the year 2554 (uint64 max), and an event far ahead', () => {
    expect(convert({ start: '18446744073709551615', end: '18446744073709551615' }, skewed).errorMessage).toBe(
      `1 rejected: span eee19b7ec3c1b174: endTimeUnixNano 18446744073709551615 is ahead of the collector's clock by more than the allowed skew (latest accepted ${LATEST})`,
    );
    expect(convert({ events: [{ name: 'later', timeUnixNano: '4000000000000000000' }] }, skewed).errorMessage).toBe(
      `1 rejected: span eee19b7ec3c1b174: event "later" timeUnixNano 4000000000000000000 is ahead of the collector's clock by more than the allowed skew (latest accepted ${LATEST})`,
    );
  });

  it('log records too', () => {
    const json = jsonLogsRequest([{ body: 'fine', timeUnixNano: '1700000000000000000' }, { body: 'later', timeUnixNano: '9000000000000000000' }]);
    for (const req of [decodeLogsRequestJson(JSON.stringify(json)), decodeLogsRequestProtobuf(encodeLogsRequest(json))]) {
      const c = logsRequestToMessages(req, skewed);
      expect([c.messages.length, c.rejected, c.errorMessage]).toEqual([
        1,
        1,
        `1 rejected: log record: timeUnixNano 9000000000000000000 is ahead of the collector's clock by more than the allowed skew (latest accepted ${LATEST})`,
      ]);
    }
  });
});

describe('what would fail downstream is refused here, per span', () => {
  it('treats an all-zero parent span id as no parent (a root), rather than waiting for it', () => {
    const json = jsonTraceRequest([{ parentSpanId: '0000000000000000' }]);
    for (const req of [decodeTraceRequestJson(JSON.stringify(json)), decodeTraceRequestProtobuf(encodeTraceRequest(json))]) {
      const env = JSON.parse(traceRequestToMessages(req, options).messages[0].value) as Record<string, unknown>;
      expect(env.parent_span_id).toBeUndefined();
    }
  });

  it('rejects token counts whose sum could overflow (the unit would carry null)', () => {
    expect(convert({ attributes: { 'gen_ai.usage.input_tokens': '1e300' } })).toEqual({
      produced: [GOOD],
      rejected: 1,
      errorMessage: '1 rejected: span eee19b7ec3c1b174: token usage input_tokens 1e+300 is out of range (0 to 2^53-1)',
    });
    expect(convert({ attributes: { 'gen_ai.usage.output_tokens': -5 } }).errorMessage).toBe('1 rejected: span eee19b7ec3c1b174: token usage output_tokens -5 is out of range (0 to 2^53-1)');
    expect(convert({ attributes: { 'gen_ai.usage.input_tokens': 9007199254740991 } }).rejected).toBe(0);
  });

  it('checks every envelope against the schema the assembler parses with', () => {
    expect(convert({}, { ...options, project: 'p'.repeat(201) })).toEqual({
      produced: [],
      rejected: 2,
      errorMessage: '2 rejected: span 1111111111111111: project: Too big: expected string to have <=200 characters; span eee19b7ec3c1b174: project: Too big: expected string to have <=200 characters',
    });
  });

  it('rejects a malformed log record alone and names it', () => {
    const json = jsonLogsRequest([{ body: 'fine' }, { timeUnixNano: 'soon', body: 'bad' }]);
    const c = logsRequestToMessages(decodeLogsRequestJson(JSON.stringify(json)), options);
    expect([c.messages.length, c.rejected, c.errorMessage]).toEqual([1, 1, '1 rejected: log record: timeUnixNano "soon" is not a decimal integer']);
    const pb = logsRequestToMessages(decodeLogsRequestProtobuf(encodeLogsRequest(jsonLogsRequest([{ body: 'fine' }]))), options);
    expect([pb.messages.length, pb.rejected]).toEqual([1, 0]);
  });
});

describe('redaction in the pipeline (both encodings)', () => {
  const redactor = createRedactor({ mode: 'redact', rules: [], key: 'test-key-0123456789', onFound: () => undefined });
  const redacting = { ...options, receivedAtMs: 1_700_000_000_000, maxFutureSkewMs: 3_600_000, redactor };

  it('rewrites a span before it is normalized, and the rejection reasons that quote it', () => {
    const json = jsonTraceRequest([
      { spanId: GOOD, name: 'execute_tool mail', attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'mail', 'gen_ai.tool.call.arguments': '{"to":"ann@x.io"}' } },
      { events: [{ name: 'sent to ann@x.io', timeUnixNano: '1800000000000000000' }] },
    ]);
    for (const req of [decodeTraceRequestJson(JSON.stringify(json)), decodeTraceRequestProtobuf(encodeTraceRequest(json))]) {
      const c = traceRequestToMessages(req, redacting);
      expect(c.messages.map((m) => m.value.includes('ann@x.io'))).toEqual([false]);
      expect(c.messages[0].value).toContain('<email:1>');
      expect(c.errorMessage).toContain('event "sent to <email:1>" timeUnixNano');
      expect(c.errorMessage).not.toContain('ann@x.io');
    }
  });
  it("rewrites the instrumentation scope's name and version, stored with every span", () => {
    const json = jsonTraceRequest([{ spanId: GOOD }], { 'service.name': 'agent' }, { name: 'lib for ann@x.io', version: '1.0 card 4111 1111 1111 1111' });
    for (const req of [decodeTraceRequestJson(JSON.stringify(json)), decodeTraceRequestProtobuf(encodeTraceRequest(json))]) {
      const c = traceRequestToMessages(req, redacting);
      expect(c.messages.length).toBe(1);
      expect((JSON.parse(c.messages[0].value) as { scope: unknown }).scope).toEqual({ name: 'lib for <email:1>', version: '1.0 card <card:1>' });
      expect(JSON.stringify(c.messages[0].parsed)).not.toContain('ann@x.io');
    }
  });
});

describe('the parse handed to the in-process bus', () => {
  it('comes with a record as it was checked, and not with one cut to fit (its text is no longer that object)', () => {
    const json = jsonTraceRequest([{ spanId: GOOD, attributes: { 'gen_ai.prompt': 'x'.repeat(4096) } }]);
    const whole = traceRequestToMessages(decodeTraceRequestJson(JSON.stringify(json)), options);
    expect(whole.messages.map((m) => m.parsed !== undefined)).toEqual([true]);
    const cut = traceRequestToMessages(decodeTraceRequestJson(JSON.stringify(json)), { ...options, maxRecordBytes: 2048 });
    expect(cut.accepted).toBe(1);
    expect(cut.messages[0].value).toContain('[truncated');
    expect(cut.messages[0].parsed).toBeUndefined();
  });
});
