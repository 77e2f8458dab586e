import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { unitFingerprint } from '../../../shared/adapters/store/revisions.ts';
import type { StoreHarness } from './store-contract.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';

// Revisions, not rewrites: the same cases against both stores.

/**
 * A store started on a database from before revisions (one unit, one score written, then the
 * history tables and revision columns removed) holds them as revision 1 and revises from there.
 */
export async function expectLegacyMigrated(second: Store, unit: Unit, score: Score): Promise<void> {
  expect((await second.listUnitRevisions(unit.unit_id)).map((r) => [r.revision, r.content_hash, r.model_output_hash])).toEqual([[1, unitFingerprint(unit).content_hash, unitFingerprint(unit).model_output_hash]]);
  expect(await second.queryScores({ unitId: unit.unit_id, unitRevision: 1 })).toEqual([score]);
  expect(await second.queryScores({ unitId: unit.unit_id })).toEqual([score]);
  expect(await second.writeUnits([unit])).toEqual([{ unit_id: unit.unit_id, revision: 1, fresh: false, latest: true }]);
  expect(await second.writeUnits([{ ...unit, model_output: 'changed' }])).toEqual([{ unit_id: unit.unit_id, revision: 2, fresh: true, latest: true }]);
  expect((await second.getUnit(unit.unit_id))?.model_output).toBe('changed');
}

export function describeRevisionContract(label: string, harness: StoreHarness): void {
  describe(`Store revisions: ${label}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await harness.create();
      await store.start();
    });

    afterAll(async () => {
      if (store) await harness.destroy(store);
    });

    const check = (): string => `rev-${randomUUID().slice(0, 8)}`;

    it('keeps a changed unit as revision 2 beside revision 1, each with its scores; reads and aggregates see the latest once', async () => {
      const c = check();
      const v1 = makeUnit({ model_output: 'It ships tomorrow.', span_count: 4 });
      const v2 = { ...v1, model_output: 'It was cancelled.', span_count: 5, assembled_at_ms: v1.assembled_at_ms + 60_000 };
      const score = (passed: boolean, at: number) => makeScore({ unit_id: v1.unit_id, check: c, passed, value: passed ? 1 : 0, created_at_ms: at, unit_revision: undefined });

      expect(await store.writeScoredUnits([{ unit: v1, scores: [score(true, T0)] }])).toEqual([{ unit_id: v1.unit_id, revision: 1, fresh: true, latest: true }]);
      expect(await store.writeScoredUnits([{ unit: v2, scores: [score(false, T0 + 60_000)] }])).toEqual([{ unit_id: v1.unit_id, revision: 2, fresh: true, latest: true }]);

      expect(await store.getUnit(v1.unit_id)).toEqual(v2);
      expect((await store.getUnitRevision(v1.unit_id))?.unit).toEqual(v2);
      expect((await store.getUnitRevision(v1.unit_id, 'default', 1))?.unit).toEqual(v1);
      expect(await store.getUnitRevision(v1.unit_id, 'default', 3)).toBeNull();

      const history = await store.listUnitRevisions(v1.unit_id, 'default');
      expect(history.map((r) => [r.revision, r.span_count, r.assembled_at_ms, r.project])).toEqual([
        [1, 4, v1.assembled_at_ms, 'default'],
        [2, 5, v2.assembled_at_ms, 'default'],
      ]);
      expect(history.map((r) => r.model_output_hash)).toEqual([unitFingerprint(v1).model_output_hash, unitFingerprint(v2).model_output_hash]);
      expect(history[0].model_output_hash).not.toBe(history[1].model_output_hash);
      expect(history[0].messages_hash).toBe(history[1].messages_hash);

      expect((await store.queryScores({ check: c })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, false]]);
      expect((await store.queryScores({ unitId: v1.unit_id, unitRevision: 1 })).map((s) => [s.unit_revision, s.passed])).toEqual([[1, true]]);
      expect((await store.queryScores({ unitId: v1.unit_id, unitRevision: 2 })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, false]]);

      const [agg] = await store.aggregateScores({ check: c });
      expect([agg.total, agg.n, agg.passed]).toEqual([1, 1, 0]);
      expect((await store.listUnits({ agent: v1.agent_name!, fromMs: v1.end_time_ms, toMs: v1.end_time_ms + 1 })).filter((u) => u.unit_id === v1.unit_id)).toHaveLength(1);
    });

    it('writes a replayed content as the revision it already is: no new revision, an older one never becomes the latest again', async () => {
      const c = check();
      const v1 = makeUnit({ model_output: 'first' });
      const v2 = { ...v1, model_output: 'second' };
      await store.writeScoredUnits([{ unit: v1, scores: [makeScore({ unit_id: v1.unit_id, check: c, passed: true, unit_revision: undefined })] }]);
      await store.writeScoredUnits([{ unit: v2, scores: [makeScore({ unit_id: v1.unit_id, check: c, passed: false, unit_revision: undefined })] }]);
      // A crash replays revision 1, re-assembled later (a new assembled_at_ms, the same content).
      const replay = { ...v1, assembled_at_ms: v1.assembled_at_ms + 120_000 };
      const results = await store.writeScoredUnits([{ unit: replay, scores: [makeScore({ unit_id: v1.unit_id, check: c, passed: true, created_at_ms: T0 + 5, unit_revision: undefined })] }]);
      expect(results).toEqual([{ unit_id: v1.unit_id, revision: 1, fresh: false, latest: false }]);
      expect((await store.listUnitRevisions(v1.unit_id)).map((r) => r.revision)).toEqual([1, 2]);
      expect((await store.getUnit(v1.unit_id))?.model_output).toBe('second');
      expect((await store.queryScores({ check: c })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, false]]);
      expect((await store.queryScores({ check: c, unitId: v1.unit_id, unitRevision: 1 })).map((s) => [s.created_at_ms, s.passed])).toEqual([[T0 + 5, true]]);
      // The latest written again stays revision 2.
      expect(await store.writeUnits([v2])).toEqual([{ unit_id: v1.unit_id, revision: 2, fresh: false, latest: true }]);
    });

    it('numbers two revisions of one unit in one batch in order', async () => {
      const v1 = makeUnit({ model_output: 'a' });
      const v2 = { ...v1, model_output: 'b' };
      expect(await store.writeUnits([v1, v2])).toEqual([
        { unit_id: v1.unit_id, revision: 1, fresh: true, latest: false },
        { unit_id: v1.unit_id, revision: 2, fresh: true, latest: true },
      ]);
      expect((await store.getUnit(v1.unit_id))?.model_output).toBe('b');
    });

    it('numbers revisions of one unit written by concurrent writes in the order of the calls, beside a concurrent write of another unit', async () => {
      const v1 = makeUnit({ model_output: 'first' });
      const v2 = { ...v1, model_output: 'second' };
      const other = makeUnit();
      const results = await Promise.all([store.writeUnits([v1]), store.writeUnits([other]), store.writeUnits([v2])]);
      expect(results).toEqual([
        [{ unit_id: v1.unit_id, revision: 1, fresh: true, latest: true }],
        [{ unit_id: other.unit_id, revision: 1, fresh: true, latest: true }],
        [{ unit_id: v1.unit_id, revision: 2, fresh: true, latest: true }],
      ]);
      expect((await store.listUnitRevisions(v1.unit_id)).map((r) => [r.revision, r.model_output_hash])).toEqual([
        [1, unitFingerprint(v1).model_output_hash],
        [2, unitFingerprint(v2).model_output_hash],
      ]);
      expect((await store.getUnit(v1.unit_id))?.model_output).toBe('second');
      expect(await store.getUnit(other.unit_id)).toEqual(other);
    });

    it("refuses another project's unit with an existing id and leaves the owner's unit and scores as they were", async () => {
      const c = check();
      const owner = makeUnit({ project: 'shop', model_output: 'owned' });
      await store.writeScoredUnits([{ unit: owner, scores: [makeScore({ unit_id: owner.unit_id, project: 'shop', check: c, passed: true, unit_revision: undefined })] }]);
      const intruder = { ...owner, project: 'bank', model_output: 'rewritten' };
      const results = await store.writeScoredUnits([
        { unit: intruder, scores: [makeScore({ unit_id: owner.unit_id, project: 'bank', check: c, passed: false, unit_revision: undefined })] },
        { unit: makeUnit({ project: 'bank', unit_id: `ok-${randomUUID()}` }), scores: [] },
      ]);
      expect(results[0]).toEqual({ unit_id: owner.unit_id, refused: `unit ${owner.unit_id} belongs to project "shop"; a change sent with a key of project "bank" is refused` });
      expect(results[1]).toMatchObject({ revision: 1, fresh: true, latest: true });
      await expect(store.writeUnits([intruder])).rejects.toBeInstanceOf(PermanentError);

      expect(await store.getUnit(owner.unit_id, 'shop')).toEqual(owner);
      expect(await store.getUnit(owner.unit_id, 'bank')).toBeNull();
      expect((await store.listUnitRevisions(owner.unit_id)).map((r) => [r.revision, r.project])).toEqual([[1, 'shop']]);
      expect((await store.queryScores({ check: c })).map((s) => [s.project, s.passed])).toEqual([['shop', true]]);
    });

    it('gives a score written without a revision the unit’s latest one, and keeps an older revision’s score out of the latest scores', async () => {
      const c = check();
      const v1 = makeUnit({ model_output: 'x' });
      await store.writeUnits([v1, { ...v1, model_output: 'y' }]);
      await store.writeScores([makeScore({ unit_id: v1.unit_id, check: c, passed: true, unit_revision: undefined })]);
      await store.writeScores([makeScore({ unit_id: v1.unit_id, check: c, passed: false, created_at_ms: T0 + 1, unit_revision: 1 })]);
      expect((await store.queryScores({ check: c })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, true]]);
      expect((await store.queryScores({ check: c, unitId: v1.unit_id, unitRevision: 1 })).map((s) => s.passed)).toEqual([false]);
      // A score of a unit the store does not hold (an eval result) is revision 1.
      const evalCheck = check();
      await store.writeScores([makeScore({ unit_id: `eval:${randomUUID()}`, unit_kind: 'eval', check: evalCheck, unit_revision: undefined })]);
      expect((await store.queryScores({ check: evalCheck })).map((s) => s.unit_revision)).toEqual([1]);
    });

    it('refuses a bad revision number', async () => {
      await expect(store.getUnitRevision('u', undefined, 0)).rejects.toBeInstanceOf(PermanentError);
      await expect(store.queryScores({ unitId: 'u', unitRevision: 1.5 })).rejects.toBeInstanceOf(PermanentError);
      expect(await store.listUnitRevisions("' OR '1'='1")).toEqual([]);
    });
  });
}
