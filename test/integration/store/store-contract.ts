import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';

// The same cases run against every Store implementation (DuckDB and ClickHouse): the contract is
// the semantics, not the SQL.

export interface StoreHarness {
  create(): Promise<Store>;
  destroy(store: Store): Promise<void>;
}

const HOSTILE = [
  "it's",
  "'; DROP TABLE scores; --",
  'back\\slash',
  'trailing\\',
  "\\'",
  'new\nline\ttab\r',
  'nul\u0000byte',
  'ünï 日本 🎉',
  '{id:String} $1 ?',
];

export function describeStoreContract(label: string, harness: StoreHarness): void {
  describe(`Store contract: ${label}`, () => {
    let store: Store;
    // Each case uses its own check name so that cases never see each other's rows.
    const checkName = (name: string): string => `${name}-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      store = await harness.create();
      await store.start();
    });

    afterAll(async () => {
      if (store) await harness.destroy(store);
    });

    it('migrate is idempotent', async () => {
      await store.migrate();
      await store.migrate();
    });

    it('returns null for an unknown unit', async () => {
      expect(await store.getUnit(`missing-${randomUUID()}`)).toBeNull();
      expect(await store.getUnit("' OR '1'='1")).toBeNull();
    });

    it('reads units back exactly as written', async () => {
      const a = makeUnit();
      const b = makeUnit({
        kind: 'session',
        unit_id: `session:${randomUUID()}`,
        conversation_id: 'conv-1',
        agent_name: null,
        model: null,
        model_output: null,
        truncated: true,
        start_time_ms: T0 - 1234.5678,
        end_time_ms: T0 - 0.25,
        assembled_at_ms: T0 + 0.5,
        errors: [{ span_id: 'abcd', type: 'Timeout', message: 'tool timed out' }],
        usage: {},
        simulation_message_history: [{ role: 'user', content: 'sim' }],
      });
      await store.writeUnits([a, b]);
      expect(await store.getUnit(a.unit_id)).toEqual(a);
      expect(await store.getUnit(b.unit_id)).toEqual(b);
    });

    it('keeps the unit assembled last, whatever the write order', async () => {
      const id = `u-${randomUUID()}`;
      const older = makeUnit({ unit_id: id, assembled_at_ms: T0, model_output: 'older' });
      const newer = makeUnit({ unit_id: id, assembled_at_ms: T0 + 10, model_output: 'newer' });
      await store.writeUnits([older]);
      await store.writeUnits([newer]);
      await store.writeUnits([older]);
      expect(await store.getUnit(id)).toEqual(newer);
      const same = makeUnit({ unit_id: id, assembled_at_ms: T0 + 10, model_output: 'same time, written later' });
      await store.writeUnits([same]);
      expect(await store.getUnit(id)).toEqual(same);
    });

    it.each(HOSTILE)('finds a unit whose id and content are hostile exactly: %j', async (text) => {
      const unit = makeUnit({
        unit_id: `${text}-${randomUUID()}`,
        agent_name: text,
        model_output: text,
        message_history: [{ role: 'user', content: text }],
      });
      await store.writeUnits([unit]);
      expect(await store.getUnit(unit.unit_id)).toEqual(unit);
      // Near misses must not match: the quoting cannot collapse distinct strings.
      expect(await store.getUnit(unit.unit_id + '\\')).toBeNull();
      expect(await store.getUnit(unit.unit_id + "'")).toBeNull();
      expect(await store.getUnit(unit.unit_id.slice(0, -1))).toBeNull();
    });

    it('keeps a unit with lone surrogates exactly (the JSON carries them)', async () => {
      const unit = makeUnit({ model_output: 'half \uD83D pair', unit_id: `lone-\uDC00-${randomUUID()}` });
      await store.writeUnits([unit]);
      expect(await store.getUnit(unit.unit_id)).toEqual(unit);
    });

    it('reads scores back exactly as written', async () => {
      const check = checkName('exact');
      const unitId = `u-${randomUUID()}`;
      const a = makeScore({ unit_id: unitId, check, created_at_ms: T0 + 2 });
      const b = makeScore({
        unit_id: unitId,
        check,
        check_version: '2',
        unit_kind: 'session',
        status: 'error',
        value: null,
        passed: null,
        method: 'deterministic',
        error: 'judge timed out',
        judge_model: null,
        latency_ms: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0,
        agent_name: null,
        agent_version: null,
        environment: null,
        service: null,
        unit_end_time_ms: T0 - 0.125,
        created_at_ms: T0 + 1,
      });
      const c = makeScore({
        unit_id: unitId,
        check,
        check_version: '3',
        value: 0.1 + 0.2,
        passed: false,
        latency_ms: 1234.5678901234,
        cost_usd: 1e-9,
        input_tokens: 2 ** 40,
        unit_end_time_ms: 1_763_599_999_999.875,
        created_at_ms: T0,
      });
      await store.writeScores([a, b, c]);
      expect(await store.queryScores({ check })).toEqual([a, b, c]);
    });

    it('writing the same score key again leaves one row, the later one', async () => {
      const check = checkName('idem');
      const first = makeScore({ check, explanation: 'first' });
      const second = { ...first, explanation: 'second' };
      await store.writeScores([first]);
      await store.writeScores([second]);
      expect(await store.queryScores({ check })).toEqual([second]);
      // A replay of the same batch changes nothing.
      await store.writeScores([second]);
      expect(await store.queryScores({ check })).toEqual([second]);
      // Within one batch the later element wins.
      const third = { ...first, explanation: 'third' };
      const fourth = { ...first, explanation: 'fourth' };
      await store.writeScores([third, fourth]);
      expect(await store.queryScores({ check })).toEqual([fourth]);
      // A different check version is a different key.
      const v2 = { ...first, check_version: '2', explanation: 'v2' };
      await store.writeScores([v2]);
      expect(await store.queryScores({ check })).toEqual([fourth, v2]);
    });

    it('the later write wins even when it carries an older created_at_ms', async () => {
      const check = checkName('rewind');
      const newer = makeScore({ check, created_at_ms: T0 + 100, explanation: 'written first' });
      const rewritten = { ...newer, created_at_ms: T0, explanation: 'written last' };
      await store.writeScores([newer]);
      await store.writeScores([rewritten]);
      expect(await store.queryScores({ check })).toEqual([rewritten]);
      // The superseded row must not leak back through a time filter that excludes the winner.
      expect(await store.queryScores({ check, fromMs: T0 + 50 })).toEqual([]);
    });

    it('filters by check, unit, time range (from inclusive, to exclusive) and limit, newest first', async () => {
      const checkA = checkName('filter-a');
      const checkB = checkName('filter-b');
      const u1 = `u1-${randomUUID()}`;
      const u2 = `u2-${randomUUID()}`;
      const s = (unit_id: string, check: string, created_at_ms: number): Score => makeScore({ unit_id, check, created_at_ms });
      const a1 = s(u1, checkA, T0);
      const a2 = s(u2, checkA, T0 + 10);
      const a3 = s(`u3-${randomUUID()}`, checkA, T0 + 20);
      const a4 = s(`u4-${randomUUID()}`, checkA, T0 + 30);
      const b1 = s(u1, checkB, T0 + 5);
      await store.writeScores([a1, a2, a3, a4, b1]);

      expect(await store.queryScores({ check: checkA })).toEqual([a4, a3, a2, a1]);
      expect(await store.queryScores({ check: checkB })).toEqual([b1]);
      expect(await store.queryScores({ unitId: u1 })).toEqual([b1, a1]);
      expect(await store.queryScores({ check: checkA, unitId: u1 })).toEqual([a1]);
      expect(await store.queryScores({ unitIds: [u2, u1, "x' OR 1=1 --"] })).toEqual([a2, b1, a1]);
      expect(await store.queryScores({ check: checkA, unitIds: [u1, u2, u1] })).toEqual([a2, a1]);
      expect(await store.queryScores({ unitIds: [] })).toEqual([]);
      expect(await store.queryScores({ check: checkA, fromMs: T0 + 10 })).toEqual([a4, a3, a2]);
      expect(await store.queryScores({ check: checkA, toMs: T0 + 20 })).toEqual([a2, a1]);
      expect(await store.queryScores({ check: checkA, fromMs: T0 + 10, toMs: T0 + 30 })).toEqual([a3, a2]);
      expect(await store.queryScores({ check: checkA, fromMs: T0 + 30, toMs: T0 + 30 })).toEqual([]);
      expect(await store.queryScores({ check: checkA, limit: 2 })).toEqual([a4, a3]);
      expect(await store.queryScores({ check: checkA, limit: 50_000 })).toEqual([a4, a3, a2, a1]);
      expect(await store.queryScores({ check: `${checkA}-none` })).toEqual([]);
      // Fractional, negative and huge bounds mean the same on every backend.
      expect(await store.queryScores({ check: checkA, fromMs: T0 + 9.5, toMs: T0 + 20.5 })).toEqual([a3, a2]);
      expect(await store.queryScores({ check: checkA, fromMs: -1e18, toMs: 1e300 })).toEqual([a4, a3, a2, a1]);
      expect(await store.queryScores({ check: checkA, toMs: 0 })).toEqual([]);
      expect(await store.queryScores({ check: checkA, toMs: -5 })).toEqual([]);
      expect(await store.queryScores({ check: checkA, fromMs: 1e300 })).toEqual([]);
    });

    it('applies the default limit of 100', async () => {
      const check = checkName('default-limit');
      const scores = Array.from({ length: 105 }, (_, i) => makeScore({ check, created_at_ms: T0 + i }));
      await store.writeScores(scores);
      const got = await store.queryScores({ check });
      expect(got).toHaveLength(100);
      expect(got[0]).toEqual(scores[104]);
      expect(got[99]).toEqual(scores[5]);
    });

    it.each(HOSTILE)('finds scores whose unit id and check name are hostile exactly: %j', async (text) => {
      const check = `${text}-${randomUUID().slice(0, 8)}`;
      const unitId = `${text}-${randomUUID()}`;
      const score = makeScore({ check, unit_id: unitId, explanation: text, check_version: text, agent_name: text });
      await store.writeScores([score]);
      expect(await store.queryScores({ check })).toEqual([score]);
      expect(await store.queryScores({ unitId })).toEqual([score]);
      expect(await store.queryScores({ check, unitId })).toEqual([score]);
      expect(await store.queryScores({ check: check + '\\' })).toEqual([]);
      expect(await store.queryScores({ check: `${check}' OR '1'='1` })).toEqual([]);
    });

    it('stores lone surrogates in score strings as U+FFFD and finds them either way', async () => {
      const check = checkName('lone-\uD800');
      const score = makeScore({ check, explanation: 'bad \uDC00 half' });
      await store.writeScores([score]);
      const expected = { ...score, check: check.replace('\uD800', '\uFFFD'), explanation: 'bad \uFFFD half' };
      expect(await store.queryScores({ check })).toEqual([expected]);
      expect(await store.queryScores({ check: expected.check })).toEqual([expected]);
    });

    it('refuses invalid input as permanent errors and writes nothing of the batch', async () => {
      const check = checkName('invalid');
      const good = makeScore({ check });
      await expect(store.writeScores([good, makeScore({ check, latency_ms: Number.NaN })])).rejects.toBeInstanceOf(PermanentError);
      await expect(store.writeScores([makeScore({ check, created_at_ms: T0 + 0.5 })])).rejects.toBeInstanceOf(PermanentError);
      await expect(store.writeUnits([makeUnit({ unit_id: '' })])).rejects.toBeInstanceOf(PermanentError);
      expect(await store.queryScores({ check })).toEqual([]);
      await expect(store.queryScores({ limit: 0 })).rejects.toBeInstanceOf(PermanentError);
      await expect(store.queryScores({ limit: 1.5 })).rejects.toBeInstanceOf(PermanentError);
      await expect(store.queryScores({ fromMs: Number.NaN })).rejects.toBeInstanceOf(PermanentError);
    });

    it('accepts empty writes', async () => {
      await store.writeScores([]);
      await store.writeUnits([]);
    });
  });
}
