import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { StoreHarness } from './store-contract.ts';
import { T0, makeUnit } from './store-fixtures.ts';

const HOSTILE = ["it's", "'; DROP TABLE units; --", 'back\\slash', 'trailing\\', "\\'", 'new\nline\ttab\r', 'nul\u0000byte', 'ünï 日本 🎉', '{id:String} $1 ?', "') OR ('1'='1"];

/** getUnits, the batched getUnit (the session aggregator's lookup): the same cases on every Store. */
export function describeUnitsBatchContract(label: string, harness: StoreHarness): void {
  describe(`Store contract, getUnits: ${label}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await harness.create();
      await store.start();
    });

    afterAll(async () => {
      if (store) await harness.destroy(store);
    });

    it('finds exactly the stored units of the project, latest revision, hostile ids quoted', async () => {
      const project = `p-${randomUUID()}`;
      const run = randomUUID();
      const sessions = HOSTILE.map((text, i) =>
        makeUnit({ kind: 'session', unit_id: `session:${text}-${run}`, project, agent_name: `agent-${run}`, conversation_id: `${text}-${run}`, assembled_at_ms: T0 + i }),
      );
      const trace = makeUnit({ unit_id: `trace-${run}`, project, agent_name: `agent-${run}` });
      const elsewhere = makeUnit({ kind: 'session', unit_id: `session:elsewhere-${run}`, project: `other-${run}`, conversation_id: `elsewhere-${run}` });
      await store.writeUnits([...sessions, trace, elsewhere]);
      const newer = { ...sessions[0], assembled_at_ms: T0 + 100, model_output: 'newer' };
      await store.writeUnits([newer]);

      const asked = [
        ...sessions.map((s) => s.unit_id),
        trace.unit_id,
        elsewhere.unit_id,
        // Near misses must not match: the quoting cannot collapse distinct strings.
        ...sessions.flatMap((s) => [s.unit_id + '\\', s.unit_id + "'", s.unit_id.slice(0, -1)]),
        sessions[1].unit_id,
        `missing-${run}`,
      ];
      const found = await store.getUnits(asked, project);
      expect(new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(
        new Map([newer, ...sessions.slice(1), trace].map((u) => [u.unit_id, u] as const).sort(([a], [b]) => (a < b ? -1 : 1))),
      );
      expect(await store.getUnits([elsewhere.unit_id], `other-${run}`)).toEqual(new Map([[elsewhere.unit_id, elsewhere]]));
    });

    // Units of their own agent name: the other suites' listings by agent (limited) on the same database never see them.
    it('answers an empty map for no ids, and splits many long ids into queries that fit', async () => {
      const project = `p-${randomUUID()}`;
      expect(await store.getUnits([], project)).toEqual(new Map());
      const run = randomUUID();
      const units = Array.from({ length: 700 }, (_, i) => makeUnit({ unit_id: `${"'".repeat(200)}-${i}-${run}`, project, agent_name: `agent-${run}` }));
      // Written a hundred at a time: the writes' own queries are not what is tested here.
      for (let i = 0; i < units.length; i += 100) await store.writeUnits(units.slice(i, i + 100));
      const found = await store.getUnits([...units.map((u) => u.unit_id), ...units.map((u) => `${u.unit_id}-missing`)], project);
      expect(found.size).toBe(700);
      for (const u of units) expect(found.get(u.unit_id)).toEqual(u);
    });
  });
}
