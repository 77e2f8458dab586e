import { describe, expect, it } from 'vitest';
import type { DecodedLogRecord, DecodedSpan } from '../otlp/types.ts';
import { createRedactor, type RedactorOptions } from './redactor.ts';
import { compileRules } from './rules.ts';

const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

function span(traceId: string, attributes: Record<string, unknown>): DecodedSpan {
  return {
    traceId,
    spanId: '1'.repeat(16),
    parentSpanId: '',
    name: 'chat',
    kind: 1,
    startTimeUnixNano: '1',
    endTimeUnixNano: '2',
    attributes,
    droppedAttributesCount: 0,
    events: [],
    status: { code: 0, message: '' },
  };
}

function redactor(overrides: Partial<RedactorOptions> = {}): { r: ReturnType<typeof createRedactor>; found: string[] } {
  const found: string[] = [];
  const r = createRedactor({ mode: 'redact', rules: [], key: 'test-key-0123456789', onFound: (rule) => found.push(rule), ...overrides });
  return { r, found };
}

describe('redactor', () => {
  it('rewrites the name, status, attributes at any depth and event attributes of a span, numbered per trace', () => {
    const { r, found } = redactor();
    const s = span(TRACE_A, {
      'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'mail bob@corp.com and x@y.io' }] }],
      'gen_ai.tool.call.arguments': '{"to":"bob@corp.com"}',
      count: 3,
      ok: true,
    });
    s.name = 'execute_tool send_mail to x@y.io';
    s.status = { code: 2, message: 'mailbox x@y.io full' };
    s.events = [{ name: 'gen_ai.user.message', timeUnixNano: '1', attributes: { content: 'I am x@y.io' } }];
    r.span(s, undefined);
    expect(s.name).toBe('execute_tool send_mail to <email:1>');
    expect(s.status.message).toBe('mailbox <email:1> full');
    expect(s.attributes).toEqual({
      'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'mail <email:2> and <email:1>' }] }],
      'gen_ai.tool.call.arguments': '{"to":"<email:2>"}',
      count: 3,
      ok: true,
    });
    expect(s.events[0].attributes).toEqual({ content: 'I am <email:1>' });
    expect(found).toEqual(['email', 'email', 'email', 'email', 'email', 'email']);
    // Another export of the same trace keeps the numbers; another trace starts again.
    const later = span(TRACE_A, { a: 'bob@corp.com' });
    r.span(later, undefined);
    expect(later.attributes.a).toBe('<email:2>');
    const other = span(TRACE_B, { a: 'bob@corp.com' });
    r.span(other, undefined);
    expect(other.attributes.a).toBe('<email:1>');
  });

  it('keeps numberings apart per project', () => {
    const { r } = redactor();
    const one = span(TRACE_A, { a: 'q@w.io', b: 'e@r.io' });
    const two = span(TRACE_A, { a: 'e@r.io' });
    r.span(one, 'p1');
    r.span(two, 'p2');
    expect([one.attributes.b, two.attributes.a]).toEqual(['<email:2>', '<email:1>']);
  });

  it('hashes identifiers with the key, the same in every trace', () => {
    const { r } = redactor();
    const one = span(TRACE_A, { 'session.id': 'jane@x.io' });
    const two = span(TRACE_B, { 'session.id': 'jane@x.io', other: 'jane@x.io' });
    r.span(one, undefined);
    r.span(two, undefined);
    expect(one.attributes['session.id']).toMatch(/^<email:[0-9a-f]{16}>$/);
    expect(two.attributes['session.id']).toBe(one.attributes['session.id']);
    expect(two.attributes.other).toBe('<email:1>');
    const { r: otherKey } = redactor({ key: 'another-key-0123456789' });
    const three = span(TRACE_A, { 'session.id': 'jane@x.io' });
    otherKey.span(three, undefined);
    expect(three.attributes['session.id']).not.toBe(one.attributes['session.id']);
  });

  it('detect mode counts and changes nothing', () => {
    const { r, found } = redactor({ mode: 'detect' });
    const s = span(TRACE_A, { a: 'card 4111111111111111 and ops@x.io' });
    r.span(s, undefined);
    expect(s.attributes.a).toBe('card 4111111111111111 and ops@x.io');
    expect(found.sort()).toEqual(['card', 'email']);
  });

  it('applies user rules: patterns and whole attributes, for all or listed projects', () => {
    const rules = compileRules([
      { name: 'customer_id', pattern: 'CUST-[0-9]{6}' },
      { name: 'address', attributes: ['user.address', 'street'] },
      { name: 'acme_code', pattern: 'ACME-[a-z]+', projects: ['acme'] },
    ]);
    const { r, found } = redactor({ rules });
    const s = span(TRACE_A, {
      note: 'customer CUST-123456 ACME-secret',
      'user.address': { street: '1 Main St', city: 'Springfield' },
      nested: [{ street: '2 Elm St' }],
    });
    r.span(s, undefined);
    expect(s.attributes).toEqual({ note: 'customer <customer_id:1> ACME-secret', 'user.address': '<address:1>', nested: [{ street: '<address:2>' }] });
    const t = span(TRACE_B, { note: 'ACME-secret' });
    r.span(t, 'acme');
    expect(t.attributes.note).toBe('<acme_code:1>');
    expect(found.filter((f) => f !== 'email')).toEqual(['customer_id', 'address', 'address', 'acme_code']);
  });

  it('rewrites log bodies, attributes and event names', () => {
    const { r } = redactor();
    const record: DecodedLogRecord = {
      timeUnixNano: '1',
      observedTimeUnixNano: '1',
      eventName: 'gen_ai.choice',
      body: { message: { content: 'call +1 415 555 2671' }, list: ['10.1.2.3'] },
      attributes: { note: 'ip 10.1.2.3' },
      droppedAttributesCount: 0,
      traceId: TRACE_A,
      spanId: '',
    };
    r.logRecord(record, undefined);
    expect(record.body).toEqual({ message: { content: 'call <phone:1>' }, list: ['<ip:1>'] });
    expect(record.attributes).toEqual({ note: 'ip <ip:1>' });
  });
});

describe('user rules', () => {
  it('run on the linear-time engine: a pattern with catastrophic backtracking stays linear', () => {
    const { r } = redactor({ rules: compileRules([{ name: 'evil', pattern: '(a+)+b' }]) });
    expect(r.text(`${'a'.repeat(100_000)}c`)).toBe(`${'a'.repeat(100_000)}c`);
  }, 60_000);

  it('refuse patterns the linear engine cannot run, and empty matches', () => {
    expect(() => compileRules([{ name: 'backref', pattern: '(a)\\1' }])).toThrow(/redaction rule "backref": the pattern cannot run in linear time/);
    expect(() => compileRules([{ name: 'lookahead', pattern: 'a(?=b)' }])).toThrow(/redaction rule "lookahead"/);
    expect(() => compileRules([{ name: 'empty', pattern: 'a*' }])).toThrow('redaction rule "empty": the pattern matches the empty string');
  });
});

describe('documents stored beside units (simulation dialogs)', () => {
  it('rewrites every string at any depth, numbered per document', () => {
    const { r } = redactor();
    const dialog = [
      { role: 'user', content: 'I am ann@x.io, SSN 078-05-1120' },
      { role: 'assistant', content: 'ok ann@x.io', tool_calls: [{ function: { name: 'save', arguments: '{"to":"bob@x.io"}' } }] },
    ];
    expect(r.document(dialog, 'shop', 'sim-1')).toEqual([
      { role: 'user', content: 'I am <email:1>, SSN <ssn:1>' },
      { role: 'assistant', content: 'ok <email:1>', tool_calls: [{ function: { name: 'save', arguments: '{"to":"<email:2>"}' } }] },
    ]);
    expect(r.document([{ content: 'bob@x.io' }], 'shop', 'sim-2')).toEqual([{ content: '<email:1>' }]);
  });

  it("hashes a simulation id as spans' tracecheck.simulation.id is, so the record and its units meet", () => {
    const { r } = redactor();
    const s = span(TRACE_A, { 'tracecheck.simulation.id': 'run-7 for ann@x.io' });
    r.span(s, 'shop');
    expect(r.identifier('run-7 for ann@x.io', 'shop')).toBe(s.attributes['tracecheck.simulation.id']);
    expect(r.identifier('run-7 for ann@x.io', 'shop')).toMatch(/^run-7 for <email:[0-9a-f]{16}>$/);
    const byRule = redactor({ rules: compileRules([{ name: 'sim', attributes: ['tracecheck.simulation.id'] }]) }).r;
    const t = span(TRACE_B, { 'tracecheck.simulation.id': 'run-8' });
    byRule.span(t, 'shop');
    expect(byRule.identifier('run-8', 'shop')).toBe(t.attributes['tracecheck.simulation.id']);
  });
});
