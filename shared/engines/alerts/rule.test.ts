import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseDuration, formatDuration } from './duration.ts';
import { AlertRuleInputSchema, AlertRuleSchema, describeIssues } from './rule.ts';

const threshold = { name: 'loop guard', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9 };
const regression = { name: 'v2 vs v1', kind: 'regression', check: 'loop_guard', filters: { agent: 'booking-agent' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } };
const judgeHealth = { name: 'judge', kind: 'judge_health', window: '30m', max_error_rate: 0.05 };

function problems(input: unknown): string[] {
  const r = AlertRuleInputSchema.safeParse(input);
  return r.success ? [] : describeIssues(r.error);
}

describe('parseDuration', () => {
  it('reads each unit', () => {
    expect(['250ms', '30s', '15m', '1h', '7d'].map(parseDuration)).toEqual([250, 30_000, 900_000, 3_600_000, 604_800_000]);
    expect(formatDuration(900_000)).toBe('15m');
    expect(formatDuration(90_500)).toBe('90500ms');
  });

  it('explains what is wrong', () => {
    expect(() => parseDuration('15 minutes')).toThrow('"15 minutes" is not a duration: write a positive whole number and a unit (ms, s, m, h, d), e.g. "30s", "15m", "1h", "7d"');
    expect(() => parseDuration('0s')).toThrow(/not a duration/);
    expect(() => parseDuration('91d')).toThrow('"91d" is longer than the maximum of 90d');
  });
});

describe('AlertRuleInputSchema', () => {
  it('parses each kind and fills in the defaults', () => {
    expect(AlertRuleInputSchema.parse(threshold)).toEqual({ ...threshold, notify: [], enabled: true, metric: 'pass_rate', min_samples: 20, for_evaluations: 3 });
    expect(AlertRuleInputSchema.parse(regression)).toEqual({ ...regression, notify: [], enabled: true, alpha: 0.05, min_samples: 30, window: '7d' });
    expect(AlertRuleInputSchema.parse({ ...judgeHealth, notify: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }], remind_every: '4h' })).toEqual({
      ...judgeHealth,
      notify: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }],
      remind_every: '4h',
      enabled: true,
      min_samples: 20,
      for_evaluations: 3,
    });
    expect(AlertRuleInputSchema.parse({ ...judgeHealth, max_error_rate: undefined, max_lag_ms: 60_000 }).kind).toBe('judge_health');
  });

  it('names every invalid field', () => {
    expect(problems({ ...threshold, name: '', window: '15 minutes', threshold: 90, min_samples: 0, notify: [{ type: 'pager' }, { type: 'webhook', url: 'ftp://x' }], colour: 'red' }).sort()).toEqual([
      '(body): Unrecognized key: "colour"',
      'min_samples: Too small: expected number to be >=1',
      'name: Too small: expected string to have >=1 characters',
      "notify.0.type: Invalid discriminator value. Expected 'webhook' | 'slack' | 'pagerduty' | 'email'",
      'notify.1.url: must be an http(s) URL',
      'window: must be a duration such as "30s", "15m", "1h" or "7d"',
    ]);
    expect(problems({ ...threshold, threshold: 90 })).toEqual(['threshold: a pass_rate threshold is a fraction between 0 and 1']);
    expect(problems({ ...threshold, metric: 'mean', threshold: 90 })).toEqual([]);
    expect(problems({ ...threshold, window: '120d' })).toEqual(['window: must be at most 90d']);
    expect(problems({ ...threshold, check: undefined })).toEqual(['check: Invalid input: expected string, received undefined']);
    expect(problems({ ...regression, candidate: { agent_version: 'v1' }, alpha: 0.6 }).sort()).toEqual(['alpha: Too big: expected number to be <=0.5', 'candidate: must differ from baseline']);
    expect(problems({ ...regression, baseline: { version: 'v1' } })).toEqual(['baseline: Unrecognized key: "version"', 'baseline: name at least one filter, e.g. {"agent_version": "v1"}']);
    expect(problems({ ...judgeHealth, max_error_rate: undefined })).toEqual(['max_error_rate: give max_error_rate, max_lag_ms or both']);
    expect(problems({ ...threshold, kind: 'anomaly' })).toEqual(["kind: Invalid discriminator value. Expected 'threshold' | 'regression' | 'judge_health' | 'no_data' | 'agreement' | 'metric_threshold' | 'metric_regression' | 'problem'"]);
  });

  it('converts to JSON Schema for the OpenAPI document', () => {
    const input = z.toJSONSchema(AlertRuleInputSchema, { io: 'input' }) as { oneOf?: unknown[]; anyOf?: unknown[] };
    expect((input.oneOf ?? input.anyOf)?.length).toBe(8);
    expect(() => z.toJSONSchema(AlertRuleSchema, { io: 'output' })).not.toThrow();
  });
});
