import { describe, expect, it } from 'vitest';
import { packRecord, unpackRecord } from './packed-record.ts';

const span = (content: string) => ({
  schema_version: 1,
  kind: 'span',
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  name: 'chat gpt-4o',
  attributes: { 'gen_ai.system': 'openai', n: 3, nested: { list: [1, null, true] } },
  genai: { operation: 'chat', output_messages: [{ role: 'assistant', content }] },
  received_at_ms: 1_790_000_000_123,
});

describe('packRecord', () => {
  it('keeps a small record as its JSON', () => {
    const record = span('Booked.');
    expect(packRecord(record).toString('utf8')).toBe(JSON.stringify(record));
    expect(unpackRecord(packRecord(record))).toEqual(record);
  });

  it('keeps a usual model-call span (tens of KB) as its JSON, not deflated', () => {
    const record = span('The table for 4 people is free on December 12. '.repeat(1_000));
    expect(JSON.stringify(record).length).toBeGreaterThan(40_000);
    expect(packRecord(record).toString('utf8')).toBe(JSON.stringify(record));
    expect(unpackRecord(packRecord(record))).toEqual(record);
  });

  it('deflates a very large record (over 64 KB of JSON) to less than half its JSON and gives it back exactly', () => {
    const content = Array.from({ length: 1_500 }, (_, i) => `The table for ${i} people is free on December ${(i % 28) + 1}.`).join(' ');
    const record = span(content);
    const packed = packRecord(record);
    expect(packed[0]).not.toBe('{'.charCodeAt(0));
    expect(packed.length).toBeLessThan(JSON.stringify(record).length / 2);
    expect(unpackRecord(packed)).toEqual(record);
  });

  it('gives back text outside Latin-1 (emoji, CJK, lone escapes) unchanged', () => {
    const content = `予約しました 🍽️ « quoted » \u0000 \\" ${'Ω'.repeat(70_000)}`;
    const record = span(content);
    expect(packRecord(record)[0]).not.toBe('{'.charCodeAt(0));
    expect(unpackRecord<ReturnType<typeof span>>(packRecord(record)).genai.output_messages[0].content).toBe(content);
    const small = span(content.slice(0, 40));
    expect(unpackRecord<ReturnType<typeof span>>(packRecord(small)).genai.output_messages[0].content).toBe(content.slice(0, 40));
  });
});
