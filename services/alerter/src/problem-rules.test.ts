import { describe, expect, it } from 'vitest';
import { AlertPayloadSchema, AlertRuleInputSchema, AlertRuleSchema, describeIssues, type ProblemRule } from '../../../shared/engines/alerts/index.ts';
import type { Problem } from '../../../shared/engines/problems/index.ts';
import { emailMessage } from './email-message.ts';
import { pagerDutyEvent } from './pagerduty-event.ts';
import { problemPayload, ruleTakes } from './problem-rules.ts';
import { slackMessage } from './slack-message.ts';

const T = Date.UTC(2026, 10, 29, 12, 0, 0);
const rule = AlertRuleSchema.parse({ id: 'r1', project: 'default', created_at_ms: 0, updated_at_ms: 0, name: 'problems', kind: 'problem', notify: [{ type: 'webhook', url: 'https://hooks.example/p' }] }) as ProblemRule;

function problem(over: Partial<Problem> = {}): Problem {
  return {
    id: 'p1', key: 'k', title: 'booking: loop over check_availability', cause: 'loop', agent: 'booking', tool: null, error_class: null, shape: 'check_availability', point: null,
    checks: { 'loop_guard:fail': 30, 'tool_errors:fail': 2 }, count: 32, first_seen_ms: T - 3_600_000, last_seen_ms: T, templates: [],
    sample: Array.from({ length: 25 }, (_, i) => `u${String(i).padStart(2, '0')}`), by_version: {}, trend: {}, state: 'new', state_since_ms: T - 3_600_000, growing_in: [], ...over,
  };
}

describe('problem rules', () => {
  it('take the three kinds by default, and refuse a misspelt one naming the choices', () => {
    expect(AlertRuleInputSchema.parse({ name: 'p', kind: 'problem' })).toMatchObject({ kind: 'problem', events: ['problem_new', 'problem_regressed', 'problem_growing'], notify: [], enabled: true });
    const r = AlertRuleInputSchema.safeParse({ name: 'p', kind: 'problem', events: ['problem_nwe'] });
    expect(r.success ? [] : describeIssues(r.error)).toEqual(['events.0: Invalid option: expected one of "problem_new"|"problem_regressed"|"problem_growing"']);
    const twice = AlertRuleInputSchema.safeParse({ name: 'p', kind: 'problem', events: ['problem_new', 'problem_new'] });
    expect(twice.success ? [] : describeIssues(twice.error)).toEqual(['events: name each event once']);
    const window = AlertRuleInputSchema.safeParse({ name: 'p', kind: 'problem', window: '1h' });
    expect(window.success ? [] : describeIssues(window.error)).toEqual(['(body): Unrecognized key: "window"']);
  });

  it('deliver the changes of their kinds, problem and agent; never a resolution', () => {
    const only = { ...rule, events: ['problem_growing' as const], problem_id: 'p1', agent: 'booking' };
    const ev = { problem_id: 'p1', at_ms: T, units: [] };
    expect(ruleTakes(rule, { ...ev, kind: 'problem_new' }, problem())).toBe(true);
    expect(ruleTakes(rule, { ...ev, kind: 'problem_resolved' }, problem())).toBe(false);
    expect(ruleTakes(only, { ...ev, kind: 'problem_new' }, problem())).toBe(false);
    expect(ruleTakes(only, { ...ev, kind: 'problem_growing' }, problem())).toBe(true);
    expect(ruleTakes(only, { ...ev, kind: 'problem_growing', problem_id: 'p2' }, problem())).toBe(false);
    expect(ruleTakes(only, { ...ev, kind: 'problem_growing' }, problem({ agent: 'search' }))).toBe(false);
  });
});

describe('problemPayload', () => {
  it('tells a new problem with its count and a sample of 20 units, its own first', () => {
    const payload = problemPayload(rule, { kind: 'problem_new', problem_id: 'p1', at_ms: T, units: ['first'] }, problem());
    expect(AlertPayloadSchema.parse(payload)).toEqual(payload);
    expect(payload).toEqual({
      rule: 'problems', state: 'firing', kind: 'problem_new', check: 'loop_guard', summary: 'New problem: booking: loop over check_availability (32 units so far).', value: 32, window: 'stream',
      units: ['first', ...Array.from({ length: 19 }, (_, i) => `u${String(i).padStart(2, '0')}`)], fired_at: '2026-11-29T12:00:00.000Z',
      problem: { id: 'p1', title: 'booking: loop over check_availability', state: 'new', cause: 'loop', agent: 'booking', count: 32, first_seen: '2026-11-29T11:00:00.000Z', last_seen: '2026-11-29T12:00:00.000Z' },
    });
  });

  it('tells a regression and a growth with the versions and the always-valid p', () => {
    expect(problemPayload(rule, { kind: 'problem_regressed', problem_id: 'p1', at_ms: T, units: [] }, problem({ state: 'regressed', sample: ['a'] }))).toMatchObject({
      kind: 'problem_regressed', summary: 'Problem back after it was resolved: booking: loop over check_availability (32 units in all).', units: ['a'], problem: { state: 'regressed' },
    });
    const grown = problemPayload(rule, { kind: 'problem_growing', problem_id: 'p1', at_ms: T, version: 'v2', baseline: 'v1', p_value: 0.0004, units: ['a', 'b'] }, problem({ sample: ['b', 'c'] }));
    expect(grown).toMatchObject({
      kind: 'problem_growing', summary: 'Problem growing in v2 against v1 (always-valid p < 0.001): booking: loop over check_availability (32 units in all).', p_value: 0.0004, units: ['a', 'b', 'c'],
      problem: { version: 'v2', baseline: 'v1', count: 32 },
    });
  });

  it('tells the change from the event alone when the problem is no longer stored', () => {
    expect(problemPayload(rule, { kind: 'problem_new', problem_id: 'gone', at_ms: T, units: ['x'] }, null)).toMatchObject({ check: null, value: 1, units: ['x'], summary: 'New problem: problem gone (1 unit so far).', problem: { id: 'gone', cause: 'unknown', count: 1 } });
  });

  it('goes out on every channel with the problem and its units', () => {
    const payload = problemPayload(rule, { kind: 'problem_new', problem_id: 'p1', at_ms: T, units: [] }, problem({ sample: ['u1'] }));
    const slack = JSON.stringify(slackMessage(payload));
    expect(slack).toContain('*Units with the problem*\\n32');
    expect(slack).toContain('Its units: `u1`');
    expect(pagerDutyEvent({ type: 'pagerduty', routing_key: 'k'.repeat(32), url: 'https://events.pagerduty.com/v2/enqueue' }, payload, 'd').payload).toMatchObject({ class: 'problem_new', component: 'loop_guard', custom_details: { problem: { id: 'p1', count: 32 }, units: ['u1'] } });
    expect(emailMessage({ type: 'email', to: 'ops@example.com' }, payload).text).toContain('Problem: booking: loop over check_availability (p1), new, 32 units\n');
  });
});
