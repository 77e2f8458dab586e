import { describe, expect, it } from 'vitest';
import { AlertRuleSchema, createAlertRepository, type AlertRuleInput } from '../../../shared/engines/alerts/index.ts';
import { createInMemoryQueryStore } from '../../../shared/engines/alerts/testing/in-memory-query-store.ts';
import { createReviewRepository, type Review } from '../../../shared/engines/review/index.ts';
import { EMPTY_ADDRESS_LIST, createAddressMatcher } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createAlerter } from './create-alerter.ts';

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const MINUTE = 60_000;

const review = (i: number, agrees: boolean, at: number): Omit<Review, 'revision'> => ({
  project: 'default', unit_id: `u${String(i).padStart(3, '0')}`, unit_revision: 1, check: 'task_completed', check_version: 'j1', check_passed: false, check_value: 0,
  agrees, verdict_value: null, expected: null, reviewer: 'ann', note: '', labels: [], queue_id: null, created_at_ms: at,
});

describe('agreement alert rule', () => {
  it('fires once when agreement over the last N reviews drops below the bound, and resolves once when it recovers', async () => {
    const store = createInMemoryQueryStore();
    const reviews = createReviewRepository(store);
    const input: AlertRuleInput = { name: 'judge trust', kind: 'agreement', check: 'task_completed', last_n: 20, min_agreement: 0.8, min_samples: 10, notify: [] };
    await createAlertRepository(store).putRule(AlertRuleSchema.parse({ ...input, id: 'r1', project: 'default', created_at_ms: 1, updated_at_ms: 1 }));
    const clock = { t: T0 };
    const alerter = createAlerter({ store, log: createSilentLogger(), intervalMs: MINUTE, now: () => clock.t, outbound: { allow: createAddressMatcher(EMPTY_ADDRESS_LIST) }, unitLink: (id) => id });
    const step = async (): Promise<string> => {
      const r = await alerter.evaluateOnce();
      clock.t += MINUTE;
      return r.notifications.map((n) => n.transition).join(',') || '-';
    };
    // 9 reviews, all disagreeing: too few to say anything.
    for (let i = 0; i < 9; i++) await reviews.putReview(review(i, false, T0 - 1000 + i));
    expect(await step()).toBe('-');
    // 20 newest: 10 agree, 10 disagree → 50% < 80%: fires, once.
    for (let i = 9; i < 20; i++) await reviews.putReview(review(i, i >= 10, T0 + i));
    expect([await step(), await step(), await step()]).toEqual(['fire', '-', '-']);
    // 20 newer reviews, 17 agreeing: the last 20 are at 85%: resolves, once.
    for (let i = 20; i < 40; i++) await reviews.putReview(review(i, i >= 23, T0 + 10 * MINUTE + i));
    expect([await step(), await step()]).toEqual(['resolve', '-']);
    await alerter.idle();
    const events = (await createAlertRepository(store).listEvents({ project: 'default' })).events.reverse();
    expect(events.map((e) => e.payload.state)).toEqual(['firing', 'resolved']);
    expect(events[0].payload).toMatchObject({
      kind: 'agreement',
      check: 'task_completed',
      value: 0.5,
      threshold: 0.8,
      window: '90d',
      summary: 'people agree with task_completed on 10 of the last 20 reviews (50.0% [29.9%–70.1%]), below 80.0%',
    });
    expect(events[0].payload.units).toEqual(['u009', 'u008', 'u007', 'u006', 'u005', 'u004', 'u003', 'u002', 'u001', 'u000']);
    expect(events[1].payload.summary).toBe('people agree with task_completed on 17 of the last 20 reviews (85.0% [64.0%–94.8%]), back at or above 80.0%');
    await alerter.shutdown();
  });
});
