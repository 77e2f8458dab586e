import { describe, expect, it } from 'vitest';
import { SpanEnvelopeSchema } from './span-envelope.v1.ts';

const span = {
  schema_version: 1, kind: 'span', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), name: 'chat', span_kind: 3,
  start_time_unix_nano: '1700000000000000000', end_time_unix_nano: '1700000001000000000', status: { code: 0 },
  scope: { name: 's' }, attributes: {}, resource_attributes: {}, events: [], dropped_attributes_count: 0, genai: {}, received_at_ms: 0,
};

describe('span envelope v1', () => {
  it('accepts a well-formed span record', () => {
    expect(SpanEnvelopeSchema.safeParse(span).success).toBe(true);
  });

  it.each(['abc', '-1', '1e18', '', '123456789012345678901'])('rejects the timestamp %j, which the assembler could not order', (bad) => {
    expect(SpanEnvelopeSchema.safeParse({ ...span, start_time_unix_nano: bad }).success).toBe(false);
  });

  it('rejects ids that are not lower-case hex of the right length', () => {
    expect(SpanEnvelopeSchema.safeParse({ ...span, trace_id: 'A'.repeat(32) }).success).toBe(false);
    expect(SpanEnvelopeSchema.safeParse({ ...span, span_id: "b'; DROP" }).success).toBe(false);
  });
});
