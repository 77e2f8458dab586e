import { describe, expect, it } from 'vitest';
import type { Score } from '../../contracts/schemas/index.ts';
import { checkAgreement } from './agreement.ts';
import { nextInQueue } from './queue.ts';
import { agreesWith } from './record.ts';
import type { Review } from './schemas.ts';

const review = (unit: string, reviewer: string, agrees: boolean, o: Partial<Review> = {}): Review => ({
  project: 'p',
  unit_id: unit,
  unit_revision: 1,
  check: 'loop_guard',
  check_version: '1',
  check_passed: false,
  check_value: 0,
  agrees,
  verdict_value: null,
  expected: null,
  reviewer,
  note: '',
  labels: [],
  queue_id: null,
  created_at_ms: 1,
  revision: 1,
  ...o,
});

describe('checkAgreement', () => {
  it('one reviewer agrees with 25 of 30 failures, a second disagrees on 3 of the other 5', () => {
    const ann = Array.from({ length: 30 }, (_, i) => review(`u${i}`, 'ann', i < 25));
    const bob = Array.from({ length: 30 }, (_, i) => review(`u${i}`, 'bob', i < 25 || i >= 28));
    const first = checkAgreement('loop_guard', ann, '1');
    expect(first.binary?.confusion).toEqual({ fail_fail: 25, fail_pass: 5, pass_fail: 0, pass_pass: 0 });
    expect(first.binary?.kappa).toBe(0);
    expect(first.inter_reviewer.items).toBe(0);
    const both = checkAgreement('loop_guard', [...ann, ...bob, review('x', 'ann', true, { check: 'other' })]);
    expect(both.reviews).toBe(60);
    expect(both.binary?.agreement.successes).toBe(52);
    expect(both.inter_reviewer.pairwise_agreement).toBe(28 / 30);
    expect(both.inter_reviewer.cohen_kappa).toBeCloseTo(5 / 7, 12);
    expect(both.versions).toEqual([{ version: '1', reviews: 60 }]);
  });

  it('score checks: a corrected value, an agreeing review as the same value', () => {
    const a = checkAgreement('rel', [
      review('a', 'ann', true, { check: 'rel', check_passed: null, check_value: 4 }),
      review('b', 'ann', false, { check: 'rel', check_passed: null, check_value: 2, verdict_value: 5 }),
      review('c', 'ann', false, { check: 'rel', check_passed: null, check_value: 3 }),
    ]);
    expect(a.binary).toBeNull();
    expect(a.score).toEqual({ n: 2, mean_abs_diff: 1.5, spearman: -1 });
  });
});

describe('agreesWith', () => {
  it('pass/fail by 1/0, scores by equal value', () => {
    expect(agreesWith({ passed: false, value: 0 }, 0)).toBe(true);
    expect(agreesWith({ passed: false, value: 0 }, 1)).toBe(false);
    expect(agreesWith({ passed: null, value: 3 }, 3)).toBe(true);
    expect(agreesWith({ passed: null, value: 3 }, 4)).toBe(false);
  });
});

describe('nextInQueue', () => {
  const items = ['a', 'b', 'c', 'd'].map((unit_id) => ({ unit_id }) as Score);
  it('the first unreviewed unit, after a skipped one, wrapping; back to the previous one', () => {
    expect(nextInQueue(items, new Set(['a']))).toEqual({ unit_id: 'b', position: 2, total: 4, reviewed: 1 });
    expect(nextInQueue(items, new Set(['a']), { after: 'b' })).toMatchObject({ unit_id: 'c' });
    expect(nextInQueue(items, new Set(['a', 'b']), { after: 'd' })).toMatchObject({ unit_id: 'c', position: 3 });
    expect(nextInQueue(items, new Set(['a', 'b', 'c', 'd']))).toEqual({ unit_id: null, position: null, total: 4, reviewed: 4 });
    expect(nextInQueue(items, new Set(['a', 'b']), { before: 'c' })).toMatchObject({ unit_id: 'b', position: 2 });
  });
});
