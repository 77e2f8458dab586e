import { describe, expect, it } from 'vitest';
import { fitRecord } from './fit-record.ts';

describe('fitRecord', () => {
  it('leaves a record under the limit untouched', () => {
    const r = { trace_id: 'a'.repeat(32), genai: { input_messages: [{ role: 'user', content: 'hi' }] } };
    expect(fitRecord(r, 10_000)).toEqual({ ok: true, json: JSON.stringify(r), cut: false });
  });

  it('halves the longest contents until the record fits, marks the cuts and flags it truncated', () => {
    const big = 'x'.repeat(4_000);
    const r = { trace_id: 'a'.repeat(32), genai: { input_messages: [{ role: 'user', content: big }, { role: 'user', content: 'short and kept' }] } as { truncated?: boolean; input_messages: Array<{ role: string; content: string }> } };
    const out = fitRecord(r, 2_500, () => (r.genai.truncated = true));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(Buffer.byteLength(out.json)).toBeLessThanOrEqual(2_500);
    const parsed = JSON.parse(out.json) as typeof r;
    expect(parsed.genai.truncated).toBe(true);
    expect(parsed.trace_id).toBe('a'.repeat(32));
    expect(parsed.genai.input_messages[0].content).toMatch(/^x+…\[truncated \d+ chars\]$/);
    expect(parsed.genai.input_messages[1].content).toBe('short and kept');
  });

  it('gives up when only short strings are left', () => {
    const r = { genai: {}, many: Array.from({ length: 200 }, (_, i) => `value-${i}`) };
    expect(fitRecord(r, 100)).toEqual({ ok: false, bytes: Buffer.byteLength(JSON.stringify(r)) });
  });
});

describe('records over the bus limit, through the pipeline', () => {
  it('cuts a span with a huge message to fit and flags it truncated; the other span is untouched', async () => {
    const { traceRequestToMessages } = await import('./pipeline.ts');
    const { decodeTraceRequestJson } = await import('./otlp/decode-json.ts');
    const { jsonTraceRequest, SPAN_ID } = await import('./testing/otlp-builders.ts');
    const huge = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'y'.repeat(3_000_000) }] }]);
    const small = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }]);
    const body = Buffer.from(JSON.stringify(jsonTraceRequest([
      { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': huge } },
      { spanId: '1111111111111111', parentSpanId: SPAN_ID, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': small } },
    ])));
    const conversion = traceRequestToMessages(decodeTraceRequestJson(body), { maxAttributeBytes: 8 * 1024 * 1024, receivedAtMs: 0, maxRecordBytes: 1_000_000 });
    expect(conversion.rejected).toBe(0);
    const [big, other] = conversion.messages.map((m) => JSON.parse(m.value) as { genai: { truncated?: boolean; input_messages: Array<{ content: string }> } });
    expect(Buffer.byteLength(conversion.messages[0].value)).toBeLessThanOrEqual(1_000_000);
    expect(big.genai.truncated).toBe(true);
    expect(big.genai.input_messages[0].content).toMatch(/^y+…\[truncated \d+ chars\]$/);
    expect(other.genai.truncated).toBeUndefined();
    expect(other.genai.input_messages[0].content).toBe('hello');
  });
});
