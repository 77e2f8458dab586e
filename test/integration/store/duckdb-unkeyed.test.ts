// The DuckDB tables without primary keys (their ART indexes stayed in memory past memory_limit):
// keys kept unique by the writes, exact counts and newest-revision-wins under a small memory
// limit, and a file written with the keys rebuilt without them, its rows kept.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

const UNITS = 20_000;
const BATCH = 500;
const REVISED = 300;
const T0 = Date.UTC(2026, 10, 1);

async function sql(path: string, statements: readonly string[]): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  let last: Record<string, unknown>[] = [];
  for (const s of statements) last = (await c.runAndReadAll(s)).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  return last;
}

describe('duckdb store without primary keys', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it(`stores ${UNITS.toLocaleString('en-US')} scored units under a 64MB limit, one row per key, the newest revision winning`, async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-unkeyed-'));
    dirs.push(base);
    const path = join(base, 'db.duckdb');
    const store = createDuckDbStore({ path, log: createSilentLogger(), memoryLimit: '64MB' });
    await store.start();
    const units = Array.from({ length: UNITS }, (_, i) => makeUnit({ unit_id: `unit-${String(i).padStart(6, '0')}`, end_time_ms: T0 + i }));
    const scoresOf = (unitId: string, passed: boolean, at: number) =>
      ['loop_guard', 'tool_ok'].map((check) => makeScore({ unit_id: unitId, check, check_version: '1', passed, created_at_ms: at, unit_end_time_ms: T0, unit_revision: undefined }));
    for (let i = 0; i < UNITS; i += BATCH) {
      await store.writeScoredUnits(units.slice(i, i + BATCH).map((unit) => ({ unit, scores: scoresOf(unit.unit_id, true, T0 + i) })));
    }
    // A second revision of the first units (new content, failing scores), then a replay of their
    // first revision (stays history) and the second revision scored again (replaces its scores).
    const revised = units.slice(0, REVISED).map((u) => ({ ...u, model_output: 'changed' }));
    const second = await store.writeScoredUnits(revised.map((unit) => ({ unit, scores: scoresOf(unit.unit_id, false, T0 + UNITS) })));
    expect(second.filter((r) => 'revision' in r && r.revision === 2 && r.fresh && r.latest)).toHaveLength(REVISED);
    await store.writeScoredUnits(units.slice(0, REVISED).map((unit) => ({ unit, scores: scoresOf(unit.unit_id, true, T0 + UNITS + 1) })));
    await store.writeScoredUnits(revised.map((unit) => ({ unit, scores: scoresOf(unit.unit_id, false, T0 + UNITS + 2) })));

    const aggregates = await store.aggregateScores({});
    expect(aggregates.map((a) => [a.check, a.total, a.passed])).toEqual([
      ['loop_guard', UNITS, UNITS - REVISED],
      ['tool_ok', UNITS, UNITS - REVISED],
    ]);
    expect(await store.getUnit('unit-000007')).toEqual(revised[7]);
    expect(await store.getUnit(`unit-${String(REVISED).padStart(6, '0')}`)).toEqual(units[REVISED]);
    expect((await store.listUnitRevisions('unit-000007')).map((r) => r.revision)).toEqual([1, 2]);
    const scores = await store.queryScores({ unitId: 'unit-000007' });
    expect(scores.map((s) => [s.check, s.unit_revision, s.passed, s.created_at_ms])).toEqual([
      ['loop_guard', 2, false, T0 + UNITS + 2],
      ['tool_ok', 2, false, T0 + UNITS + 2],
    ]);
    expect(await store.memoryBytes!()).toBeLessThanOrEqual(64 * 2 ** 20);
    await store.shutdown();

    const counts = await sql(path, [
      `SELECT (SELECT count(*)::INTEGER FROM units) AS units, (SELECT count(*)::INTEGER FROM unit_revisions) AS unit_revisions,
        (SELECT count(*)::INTEGER FROM scores) AS scores, (SELECT count(*)::INTEGER FROM score_revisions) AS score_revisions,
        (SELECT count(*)::INTEGER FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name <> 'docs') AS keys`,
    ]);
    expect(counts).toEqual([{ units: UNITS, unit_revisions: UNITS + REVISED, scores: 2 * UNITS, score_revisions: 2 * (UNITS + REVISED), keys: 0 }]);
  }, 600_000);

  it('rebuilds the tables of a file written with primary keys without them, every row kept, and writes on', async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-keyed-'));
    dirs.push(base);
    const path = join(base, 'keyed.duckdb');
    const unit = makeUnit({ unit_id: 'keyed-unit' });
    const first = createDuckDbStore({ path, log: createSilentLogger() });
    await first.start();
    await first.writeScoredUnits([{ unit, scores: [makeScore({ unit_id: unit.unit_id, check: 'c', passed: true, created_at_ms: T0 })] }]);
    await first.shutdown();
    // What the release before left: the same tables, each with its primary key.
    const keys: Record<string, string> = { units: 'unit_id', unit_revisions: 'unit_id, revision', scores: 'unit_id, "check", check_version', score_revisions: 'unit_id, unit_revision, "check", check_version' };
    await sql(
      path,
      Object.entries(keys).flatMap(([table, key]) => [
        `CREATE TABLE ${table}_keyed AS SELECT * FROM ${table} LIMIT 0`,
        `ALTER TABLE ${table}_keyed ADD PRIMARY KEY (${key})`,
        `INSERT INTO ${table}_keyed SELECT * FROM ${table}`,
        `DROP TABLE ${table}`,
        `ALTER TABLE ${table}_keyed RENAME TO ${table}`,
      ]),
    );
    expect(await sql(path, [`SELECT count(*)::INTEGER AS n FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name <> 'docs'`])).toEqual([{ n: 4 }]);

    const second = createDuckDbStore({ path, log: createSilentLogger() });
    await second.start();
    expect(await second.getUnit(unit.unit_id)).toEqual(unit);
    await second.writeScoredUnits([{ unit: { ...unit, model_output: 'changed' }, scores: [makeScore({ unit_id: unit.unit_id, check: 'c', passed: false, created_at_ms: T0 + 1 })] }]);
    expect(await second.getUnit(unit.unit_id)).toEqual({ ...unit, model_output: 'changed' });
    expect((await second.queryScores({ unitId: unit.unit_id })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, false]]);
    await second.shutdown();
    expect(
      await sql(path, [
        `SELECT (SELECT count(*)::INTEGER FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name <> 'docs') AS keys,
          (SELECT count(*)::INTEGER FROM units) AS units, (SELECT count(*)::INTEGER FROM unit_revisions) AS unit_revisions, (SELECT count(*)::INTEGER FROM score_revisions) AS score_revisions,
          (SELECT count(*)::INTEGER FROM duckdb_tables() WHERE table_name LIKE '%_with_key') AS aside`,
      ]),
    ).toEqual([{ keys: 0, units: 1, unit_revisions: 2, score_revisions: 2, aside: 0 }]);
  }, 120_000);
});
