import type { ClickHouseClient } from '@clickhouse/client';
import { expect } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore } from '../../../shared/adapters/store/index.ts';
import { uniqueName } from '../../helpers/infra.ts';
import { REQUEST_TIMEOUT_MS } from './clickhouse-test-server.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// A unit revised three times, each revision ending in another month: its scores land in three
// partitions (scores are partitioned by the month of the unit's end), each write in a part of its
// own (merges stopped). Every read must see the last revision only, with merges stopped and after
// OPTIMIZE … FINAL (which never merges across partitions, so three rows stay on disk).
const JAN = Date.UTC(2025, 0, 31, 23, 59, 59);
const FEB = Date.UTC(2025, 1, 1, 0, 0, 1);
const MAR = Date.UTC(2025, 2, 1, 0, 0, 1);
const TABLES = ['units', 'scores', 'unit_revisions', 'score_revisions'];

/** Writes the three revisions through a store on `url` and checks every read, before and after merges. */
export async function expectDedupAcrossPartitions(url: string, admin: ClickHouseClient, database: string): Promise<void> {
  const store = createClickHouseStore({ url, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
  await store.start();
  const check = uniqueName('dedup');
  const agent = uniqueName('agent');
  for (const t of TABLES) await admin.command({ query: `SYSTEM STOP MERGES ${database}.${t}` });
  const v1 = makeUnit({ agent_name: agent, start_time_ms: JAN - 5_000, end_time_ms: JAN, assembled_at_ms: JAN + 1_000, model_output: 'v1' });
  const v2 = { ...v1, end_time_ms: FEB, assembled_at_ms: FEB + 1_000, model_output: 'v2', span_count: 6 };
  const v3 = { ...v1, end_time_ms: MAR, assembled_at_ms: MAR + 1_000, model_output: 'v3', span_count: 8 };
  const revisions = [
    { unit: v1, passed: true, value: 1 },
    { unit: v2, passed: false, value: 0.5 },
    { unit: v3, passed: true, value: 0.25 },
  ];
  for (const [i, r] of revisions.entries()) {
    const score = makeScore({ unit_id: v1.unit_id, check, agent_name: agent, passed: r.passed, value: r.value, unit_end_time_ms: r.unit.end_time_ms, created_at_ms: r.unit.assembled_at_ms + 10, unit_revision: undefined });
    expect(await store.writeScoredUnits([{ unit: r.unit, scores: [score] }])).toEqual([{ unit_id: v1.unit_id, revision: i + 1, fresh: true, latest: true }]);
  }

  const raw = async (): Promise<[number, number]> => {
    const rs = await admin.query({ query: `SELECT count() AS n, uniqExact(toYYYYMM(unit_end)) AS months FROM ${database}.scores WHERE \`check\` = '${check}'`, format: 'JSONEachRow' });
    const [row] = await rs.json<{ n: string | number; months: string | number }>();
    return [Number(row.n), Number(row.months)];
  };
  const expectLatest = async (): Promise<void> => {
    const latest = await store.queryScores({ check });
    expect(latest.map((s) => [s.unit_revision, s.value, s.passed, s.unit_end_time_ms])).toEqual([[3, 0.25, true, MAR]]);
    // Filters a superseded version matches and the latest does not: nothing, not the old version.
    expect(await store.queryScores({ check, passed: false })).toEqual([]);
    expect(await store.queryScores({ check, endFromMs: JAN - 1, endToMs: FEB + 1 })).toEqual([]);
    expect(await store.aggregateScores({ check, fromMs: JAN - 1, toMs: FEB + 1 })).toEqual([]);
    const [agg] = await store.aggregateScores({ check });
    expect([agg.total, agg.n, agg.passed, agg.value_sum]).toEqual([1, 1, 1, 0.25]);
    expect(await store.aggregateScores({ check, fromMs: MAR, toMs: MAR + 1 })).toHaveLength(1);
    expect(await store.valueCounts({ check })).toEqual([{ check, value: 0.25, count: 1 }]);
    expect((await store.getUnit(v1.unit_id))?.model_output).toBe('v3');
    expect((await store.listUnits({ agent })).map((u) => [u.unit_id, u.end_time_ms])).toEqual([[v1.unit_id, MAR]]);
    expect(await store.listUnits({ agent, fromMs: JAN - 1, toMs: FEB + 1 })).toEqual([]);
    expect((await store.listUnitRevisions(v1.unit_id)).map((r) => r.revision)).toEqual([1, 2, 3]);
    expect((await store.queryScores({ unitId: v1.unit_id, unitRevision: 2 })).map((s) => [s.value, s.passed])).toEqual([[0.5, false]]);
  };

  expect(await raw()).toEqual([3, 3]);
  await expectLatest();
  for (const t of TABLES) {
    await admin.command({ query: `SYSTEM START MERGES ${database}.${t}` });
    await admin.command({ query: `OPTIMIZE TABLE ${database}.${t} FINAL` });
  }
  expect(await raw()).toEqual([3, 3]);
  await expectLatest();
  await store.shutdown();
}
