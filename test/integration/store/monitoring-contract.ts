import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { StoreHarness } from './store-contract.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';

// The monitoring half of the store contract (aggregates, listings, documents), run against every
// Store implementation. Each case uses its own check names or project, so cases never see each other.

const MIN = 60_000;

export function describeMonitoringContract(label: string, harness: StoreHarness): void {
  describe(`Store monitoring contract: ${label}`, () => {
    let store: Store;
    const uniq = (name: string): string => `${name}-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      store = await harness.create();
      await store.start();
    });
    afterAll(async () => {
      if (store) await harness.destroy(store);
    });

    it('aggregates per check: ok scores count towards rates, errors and not_run apart, one row per key', async () => {
      const check = uniq('loop_guard');
      const other = uniq('task_completed');
      const at = (i: number, o: Partial<Score>): Score => makeScore({ check, unit_id: `u${i}`, unit_end_time_ms: T0 + i * 1000, ...o });
      const scores = [
        at(1, { passed: true, value: 1 }),
        at(2, { passed: true, value: 1 }),
        at(3, { passed: false, value: 0 }),
        at(4, { status: 'error', passed: null, value: null, error: 'judge timed out' }),
        at(5, { status: 'not_run', passed: null, value: null, error: 'no judge' }),
        makeScore({ check: other, unit_id: 'u1', value: 4, passed: null, unit_end_time_ms: T0 }),
        makeScore({ check: other, unit_id: 'u2', value: 2, passed: null, unit_end_time_ms: T0 }),
      ];
      await store.writeScores(scores);
      // Re-scored: u3 now passes, in a later write; it must count once, as the later row.
      await store.writeScores([at(3, { passed: true, value: 1 })]);

      const rows = await store.aggregateScores({ check });
      expect(rows).toEqual([
        { check, t: null, total: 5, n: 3, passed: 3, judged: 3, valued: 3, value_sum: 3, value_sq_sum: 3, error_count: 1, not_run_count: 1, mean_lag_ms: expect.any(Number) },
      ]);
      const [scored] = await store.aggregateScores({ check: other });
      expect(scored).toMatchObject({ check: other, n: 2, judged: 0, valued: 2, value_sum: 6, value_sq_sum: 20 });
    });

    it('counts a unit re-scored months later once, as the later score', async () => {
      const check = uniq('rescored');
      await store.writeScores([makeScore({ check, unit_id: 'r1', passed: false, value: 0, created_at_ms: T0 })]);
      await store.writeScores([makeScore({ check, unit_id: 'r1', passed: true, value: 1, created_at_ms: T0 + 95 * 86_400_000 })]);
      expect((await store.aggregateScores({ check })).map((r) => [r.n, r.passed])).toEqual([[1, 1]]);
      expect((await store.queryScores({ check })).map((r) => r.passed)).toEqual([true]);
      expect(await store.queryScores({ check, passed: false })).toEqual([]);
    });

    it('buckets by the unit end time, epoch-aligned, and bounds [from, to) on it', async () => {
      const check = uniq('bucketed');
      const base = Math.floor(T0 / (5 * MIN)) * 5 * MIN;
      await store.writeScores([
        makeScore({ check, unit_id: 'a', unit_end_time_ms: base + 10, passed: true }),
        makeScore({ check, unit_id: 'b', unit_end_time_ms: base + 4 * MIN, passed: false }),
        makeScore({ check, unit_id: 'c', unit_end_time_ms: base + 5 * MIN, passed: true }),
        makeScore({ check, unit_id: 'd', unit_end_time_ms: base + 11 * MIN, passed: true }),
      ]);
      const rows = await store.aggregateScores({ check, bucketMs: 5 * MIN });
      expect(rows.map((r) => [r.t, r.n, r.passed])).toEqual([
        [base, 2, 1],
        [base + 5 * MIN, 1, 1],
        [base + 10 * MIN, 1, 1],
      ]);
      const bounded = await store.aggregateScores({ check, fromMs: base + 4 * MIN, toMs: base + 11 * MIN });
      expect(bounded.map((r) => [r.n, r.passed])).toEqual([[2, 1]]);
    });

    it('filters by agent, version, environment, service, kind, project, and judge-only methods', async () => {
      const check = uniq('filtered');
      await store.writeScores([
        makeScore({ check, unit_id: 'v1a', agent_version: 'v1', passed: true }),
        makeScore({ check, unit_id: 'v1b', agent_version: 'v1', passed: false }),
        makeScore({ check, unit_id: 'v2a', agent_version: 'v2', passed: false, method: 'deterministic' }),
        makeScore({ check, unit_id: 'nov', agent_version: null, passed: true, environment: 'staging' }),
        makeScore({ check, unit_id: 'p2', agent_version: 'v1', passed: true, project: 'other' }),
      ]);
      const count = async (f: Parameters<Store['aggregateScores']>[0]): Promise<number> => (await store.aggregateScores({ check, ...f }))[0]?.n ?? 0;
      expect(await count({ agentVersion: 'v1' })).toBe(3);
      expect(await count({ agentVersion: 'v1', project: 'default' })).toBe(2);
      expect(await count({ agentVersion: 'v2' })).toBe(1);
      expect(await count({ agentVersion: '' })).toBe(1);
      expect(await count({ environment: 'staging' })).toBe(1);
      expect(await count({ agent: 'support-bot', service: 'support-api', unitKind: 'trace', project: 'default' })).toBe(4);
      expect(await count({ judgeOnly: true, project: 'default' })).toBe(3);
      expect(await count({ agent: "x' OR '1'='1" })).toBe(0);
      expect(await count({ project: 'nobody' })).toBe(0);
    });

    it('splits by agent and version on request, units without a version as null', async () => {
      const check = uniq('split');
      await store.writeScores([
        makeScore({ check, unit_id: 's1', agent_name: 'a', agent_version: 'v1', passed: true }),
        makeScore({ check, unit_id: 's2', agent_name: 'a', agent_version: 'v1', passed: false }),
        makeScore({ check, unit_id: 's3', agent_name: 'a', agent_version: 'v2', passed: true }),
        makeScore({ check, unit_id: 's4', agent_name: 'b', agent_version: null, passed: true }),
      ]);
      const rows = await store.aggregateScores({ check, splitByAgent: true });
      const key = (r: { agent?: string | null; agent_version?: string | null }): string => `${r.agent ?? '-'}/${r.agent_version ?? '-'}`;
      expect(rows.map((r) => [key(r), r.n, r.passed]).sort()).toEqual([
        ['a/v1', 2, 1],
        ['a/v2', 1, 1],
        ['b/-', 1, 1],
      ]);
      expect((await store.aggregateScores({ check }))[0]).not.toHaveProperty('agent');
    });

    it('counts distinct values of ok scores per check', async () => {
      const check = uniq('rating');
      await store.writeScores([1, 3, 3, 5, 5, 5].map((value, i) => makeScore({ check, unit_id: `r${i}`, value, passed: null })));
      await store.writeScores([makeScore({ check, unit_id: 'err', status: 'error', value: 2, passed: null })]);
      expect(await store.valueCounts({ check })).toEqual([
        { check, value: 1, count: 1 },
        { check, value: 3, count: 2 },
        { check, value: 5, count: 3 },
      ]);
    });

    it('filters scores by passed, status and version, and pages by cursor without gaps or repeats', async () => {
      const check = uniq('paged');
      const scores = Array.from({ length: 25 }, (_, i) =>
        makeScore({ check, unit_id: `p${String(i).padStart(2, '0')}`, created_at_ms: T0 + Math.floor(i / 3), passed: i % 2 === 0, agent_version: i < 20 ? 'v1' : 'v2' }),
      );
      await store.writeScores(scores);
      const seen: string[] = [];
      let after: Score | undefined;
      for (let page = 0; page < 5; page++) {
        const rows = await store.queryScores({
          check,
          limit: 10,
          ...(after ? { after: { created_at_ms: after.created_at_ms, unit_id: after.unit_id, check: after.check, check_version: after.check_version } } : {}),
        });
        seen.push(...rows.map((r) => r.unit_id));
        after = rows.at(-1);
        if (rows.length < 10) break;
      }
      const expected = [...scores].sort((a, b) => b.created_at_ms - a.created_at_ms || a.unit_id.localeCompare(b.unit_id)).map((s) => s.unit_id);
      expect(seen).toEqual(expected);
      expect((await store.queryScores({ check, passed: false })).length).toBe(12);
      expect((await store.queryScores({ check, passed: true, agentVersion: 'v2' })).map((s) => s.unit_id)).toEqual(['p24', 'p22', 'p20']);
      expect(await store.queryScores({ check, status: 'error' })).toEqual([]);
    });

    it('lists units newest first with filters, project scope and cursor paging', async () => {
      const project = uniq('proj');
      const units = Array.from({ length: 7 }, (_, i) =>
        makeUnit({ unit_id: `${project}-u${i}`, project, end_time_ms: T0 + (i % 3) * 1000, agent_version: i < 4 ? 'v1' : 'v2', kind: i === 6 ? 'session' : 'trace', conversation_id: i === 6 ? 'conv-9' : null }),
      );
      await store.writeUnits(units);
      const page1 = await store.listUnits({ project, limit: 4 });
      const last = page1.at(-1)!;
      const page2 = await store.listUnits({ project, limit: 4, after: { end_time_ms: last.end_time_ms, unit_id: last.unit_id } });
      const expected = [...units].sort((a, b) => b.end_time_ms - a.end_time_ms || a.unit_id.localeCompare(b.unit_id)).map((u) => u.unit_id);
      expect([...page1, ...page2].map((u) => u.unit_id)).toEqual(expected);
      expect(page1[0]).toEqual({
        unit_id: expected[0],
        project,
        kind: expect.any(String),
        agent_name: 'support-bot',
        agent_version: expect.any(String),
        environment: 'prod',
        service: 'support-api',
        conversation_id: expect.toBeOneOf([null, 'conv-9']),
        model: 'gpt-4o-mini',
        start_time_ms: T0 - 5_000,
        end_time_ms: T0 + 2000,
        span_count: 4,
        truncated: false,
      });
      expect((await store.listUnits({ project, agentVersion: 'v2' })).map((u) => u.unit_id).sort()).toEqual([`${project}-u4`, `${project}-u5`, `${project}-u6`]);
      expect((await store.listUnits({ project, unitKind: 'session', conversationId: 'conv-9' })).map((u) => u.unit_id)).toEqual([`${project}-u6`]);
      expect(await store.listUnits({ project: uniq('nobody') })).toEqual([]);
      expect(await store.getUnit(`${project}-u0`, 'someone-else')).toBeNull();
      expect((await store.getUnit(`${project}-u0`, project))?.unit_id).toBe(`${project}-u0`);
    });

    it('keeps documents per (kind, project, id): last write wins, delete, list newest first with paging', async () => {
      const kind = uniq('alert_rule');
      const hostileId = "'; DROP TABLE docs; --";
      await store.putDoc({ kind, project: 'a', id: 'r1', body: { name: 'one', n: 1 }, updated_at_ms: T0 });
      await store.putDoc({ kind, project: 'a', id: hostileId, body: { name: 'two' }, updated_at_ms: T0 + 1 });
      await store.putDoc({ kind, project: 'b', id: 'r1', body: { name: 'other project' }, updated_at_ms: T0 + 2 });
      await store.putDoc({ kind, project: 'a', id: 'r1', body: { name: 'one, edited', n: 2 }, updated_at_ms: T0 + 3 });

      expect(await store.getDoc(kind, 'a', 'r1')).toEqual({ kind, project: 'a', id: 'r1', body: { name: 'one, edited', n: 2 }, updated_at_ms: T0 + 3 });
      expect((await store.getDoc(kind, 'a', hostileId))?.body).toEqual({ name: 'two' });
      expect((await store.listDocs({ kind, project: 'a' })).map((d) => d.id)).toEqual(['r1', hostileId]);
      expect((await store.listDocs({ kind })).map((d) => `${d.project}/${d.id}`)).toEqual(['a/r1', 'b/r1', `a/${hostileId}`]);
      expect((await store.listDocs({ kind, limit: 1, beforeMs: T0 + 3 })).map((d) => d.project)).toEqual(['b']);

      await store.deleteDoc(kind, 'a', 'r1');
      await store.deleteDoc(kind, 'a', 'never-existed');
      expect(await store.getDoc(kind, 'a', 'r1')).toBeNull();
      expect((await store.getDoc(kind, 'b', 'r1'))?.body).toEqual({ name: 'other project' });
      expect((await store.listDocs({ kind, project: 'a' })).map((d) => d.id)).toEqual([hostileId]);
      // Written again after a delete, it is back.
      await store.putDoc({ kind, project: 'a', id: 'r1', body: { name: 'again' }, updated_at_ms: T0 + 4 });
      expect((await store.getDoc(kind, 'a', 'r1'))?.body).toEqual({ name: 'again' });
    });
  });
}
