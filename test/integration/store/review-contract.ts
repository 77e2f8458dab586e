import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { ReviewInputSchema, ReviewQueueSchema, checkAgreement, createReviewRepository, queueItems, recordReview, type ReviewQueue } from '../../../shared/engines/review/index.ts';
import { sampleKey } from '../../../shared/engines/monitors/index.ts';
import type { StoreHarness } from './store-contract.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';

// Review queues and reviews (shared/engines/review) on every Store implementation: both keep them
// as keyed documents, and a queue is evaluated against the stored scores.

export function describeReviewContract(label: string, harness: StoreHarness): void {
  describe(`Store review contract: ${label}`, () => {
    let store: Store;
    const uniq = (name: string): string => `${name}-${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      store = await harness.create();
      await store.start();
    });
    afterAll(async () => {
      if (store) await harness.destroy(store);
    });

    const queue = (project: string, o: Partial<ReviewQueue> & Pick<ReviewQueue, 'filter'>): ReviewQueue =>
      ReviewQueueSchema.parse({ id: randomUUID(), project, name: 'q', sample_rate: 1, unit_ids: [], created_at_ms: T0, updated_at_ms: T0, ...o });

    it('a queue takes the scored units its filter and sample match, oldest first, plus units added by id', async () => {
      const project = uniq('proj');
      const check = uniq('loop_guard');
      const units = Array.from({ length: 6 }, (_, i) => makeUnit({ project, unit_id: `q${i}-${randomUUID()}`, attributes: { tier: i % 2 === 0 ? 'gold' : 'free' } }));
      for (const [i, unit] of units.entries()) {
        await store.writeScoredUnits([{ unit, scores: [makeScore({ project, unit_id: unit.unit_id, check, passed: i < 4 ? false : true, value: i < 4 ? 0 : 1, created_at_ms: T0 + i })] }]);
      }
      const failing = await queueItems(store, queue(project, { filter: { check, passed: false } }));
      expect(failing.map((s) => s.unit_id)).toEqual(units.slice(0, 4).map((u) => u.unit_id));
      const gold = await queueItems(store, queue(project, { filter: { check, passed: false, attributes: { tier: 'gold' } }, unit_ids: [units[5].unit_id, 'missing'] }));
      expect(gold.map((s) => s.unit_id)).toEqual([units[0].unit_id, units[2].unit_id, units[5].unit_id]);
      const sampled = await queueItems(store, queue(project, { filter: { check }, sample_rate: 0.5 }));
      expect(sampled.map((s) => s.unit_id)).toEqual(units.filter((u) => sampleKey(u.unit_id) < 0.5).map((u) => u.unit_id));
      // Another project's queue over the same check sees none of them.
      expect(await queueItems(store, queue(uniq('other'), { filter: { check } }))).toEqual([]);
      // A unit scored later enters the queue.
      const late = makeUnit({ project });
      await store.writeScoredUnits([{ unit: late, scores: [makeScore({ project, unit_id: late.unit_id, check, passed: false, value: 0, created_at_ms: T0 + 100 })] }]);
      expect((await queueItems(store, queue(project, { filter: { check, passed: false } }))).at(-1)?.unit_id).toBe(late.unit_id);
    });

    it("keeps one review per reviewer, unit and check (the later replaces theirs), several reviewers' apart, per project", async () => {
      const project = uniq('proj');
      const check = uniq('task_completed');
      const repo = createReviewRepository(store);
      const unit = makeUnit({ project });
      await store.writeScoredUnits([{ unit, scores: [makeScore({ project, unit_id: unit.unit_id, check, check_version: '2', passed: false, value: 0 })] }]);
      const input = (o: object) => ReviewInputSchema.parse({ unit_id: unit.unit_id, check, ...o });
      const first = await recordReview(store, repo, input({ agrees: true, note: "it's \\ hostile '; --" }), { project, reviewer: 'ann', atMs: T0 });
      expect(first).toMatchObject({ revision: 1, unit_revision: 1, check_version: '2', check_passed: false, agrees: true, note: "it's \\ hostile '; --" });
      await recordReview(store, repo, input({ agrees: false, labels: ['a', 'a', 'b'] }), { project, reviewer: 'ann', atMs: T0 });
      await recordReview(store, repo, input({ verdict_value: 0 }), { project, reviewer: 'bob', atMs: T0 + 1 });
      expect(await recordReview(store, repo, input({ agrees: true }), { project: uniq('other'), reviewer: 'eve', atMs: T0 })).toBeNull();
      const reviews = await repo.listReviews({ project, check });
      expect(reviews.map((r) => [r.reviewer, r.agrees, r.revision, r.labels])).toEqual([
        ['ann', false, 2, ['a', 'b']],
        ['bob', true, 1, []],
      ]);
      expect(await repo.listReviews({ project, check, reviewer: 'bob' })).toHaveLength(1);
      expect(await repo.listReviews({ project: uniq('other') })).toEqual([]);
      const agreement = checkAgreement(check, reviews, '2');
      expect(agreement.binary?.confusion).toEqual({ fail_fail: 1, fail_pass: 1, pass_fail: 0, pass_pass: 0 });
      expect(agreement.inter_reviewer).toMatchObject({ items: 1, pairs: 1, agreeing_pairs: 0 });
    });

    it('stores and lists queues per project', async () => {
      const project = uniq('proj');
      const repo = createReviewRepository(store);
      const q = queue(project, { filter: { check: 'c' }, name: "gold's failures" });
      await repo.putQueue(q);
      expect(await repo.getQueue(project, q.id)).toEqual(q);
      expect(await repo.listQueues(project)).toEqual([q]);
      expect(await repo.getQueue(uniq('other'), q.id)).toBeNull();
    });
  });
}
