import { describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_LIMITS, alertLimitProblems, emailDomainAllowed, ruleWithinLimits, type AlertLimits } from './alert-limits.ts';
import { AlertRuleSchema, type AlertRule, type AlertRuleInput } from './rule.ts';

const limits: AlertLimits = { maxRules: 3, maxEmailRecipients: 4, emailDomains: ['example.com'], minEmailRemindMs: 15 * 60_000 };
const input = (to: string[] | null, extra: Partial<AlertRuleInput> = {}): AlertRuleInput =>
  ({ name: 'r', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, notify: to ? [{ type: 'email', to }] : [{ type: 'webhook', url: 'https://hooks.example.com/x' }], ...extra }) as AlertRuleInput;
const stored = (i: number, to: string[] | null, extra: Partial<AlertRuleInput> = {}): AlertRule =>
  AlertRuleSchema.parse({ ...input(to, extra), id: `r${i}`, project: 'p', created_at_ms: 1, updated_at_ms: 1 });

describe('alert limits', () => {
  it('refuses a rule past the per-project count, but an edit of one already there is taken', () => {
    const three = [stored(1, null), stored(2, null), stored(3, null)];
    expect(alertLimitProblems(input(null), three, limits)).toEqual(['a project has at most 3 alert rules (TRACECHECK_ALERT_MAX_RULES); delete one first']);
    expect(alertLimitProblems(input(null), three.slice(1), limits, true)).toEqual([]);
  });

  it('counts distinct recipients over every rule of the project, in any letter case', () => {
    const others = [stored(1, ['a@example.com', 'b@example.com']), stored(2, ['B@example.com', 'c@example.com'])];
    expect(alertLimitProblems(input(['c@EXAMPLE.com', 'd@example.com']), others, limits)).toEqual([]);
    expect(alertLimitProblems(input(['d@example.com', 'e@example.com']), others, limits)).toEqual([
      "a project's rules email at most 4 distinct addresses (TRACECHECK_EMAIL_MAX_RECIPIENTS); this would make 5",
    ]);
  });

  it('keeps email to the allowed domains and their subdomains', () => {
    expect(['x@example.com', 'x@ops.example.com', 'x@EXAMPLE.COM', 'x@badexample.com', 'x@example.com.evil.io'].map((a) => emailDomainAllowed(a, ['example.com']))).toEqual([true, true, true, false, false]);
    expect(emailDomainAllowed('x@anything.io', [])).toBe(true);
    expect(alertLimitProblems(input(['x@evil.io']), [], limits)).toEqual(['email to x@evil.io is not allowed: the operator allows only example.com (TRACECHECK_EMAIL_ALLOWED_DOMAINS)']);
  });

  it('sets a floor under the reminders of a rule that emails, and only of one that does', () => {
    expect(alertLimitProblems(input(['a@example.com'], { remind_every: '1m' }), [], limits)).toEqual(['remind_every of a rule that emails must be at least 15 min (TRACECHECK_EMAIL_MIN_REMIND_MINUTES)']);
    expect(alertLimitProblems(input(['a@example.com'], { remind_every: '15m' }), [], limits)).toEqual([]);
    expect(alertLimitProblems(input(null, { remind_every: '1m' }), [], limits)).toEqual([]);
  });

  it('holds a rule stored before the limits to them when it is applied', () => {
    const old = stored(1, ['a@example.com', 'x@evil.io'], { remind_every: '1m' });
    expect(ruleWithinLimits(old, limits)).toMatchObject({ notify: [{ type: 'email', to: ['a@example.com'] }], remind_every: '15m' });
    const onlyEvil = stored(2, ['x@evil.io'], { remind_every: '1m' });
    expect(ruleWithinLimits(onlyEvil, limits)).toMatchObject({ notify: [], remind_every: '1m' });
    const fine = stored(3, ['a@example.com'], { remind_every: '1h' });
    expect(ruleWithinLimits(fine, limits)).toBe(fine);
    expect(ruleWithinLimits(stored(4, ['x@evil.io']), DEFAULT_ALERT_LIMITS).notify).toEqual([{ type: 'email', to: ['x@evil.io'] }]);
  });
});
