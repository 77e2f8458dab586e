import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createMetrics } from '../../../shared/kit/metrics/index.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { describeMonitoringContract } from './monitoring-contract.ts';
import { describeRevisionContract, expectLegacyMigrated } from './revision-contract.ts';
import { describeStoreContract } from './store-contract.ts';
import { describeUnitsBatchContract } from './units-batch-contract.ts';
import { describeReviewContract } from './review-contract.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

const harness = {
  create: () => Promise.resolve(createDuckDbStore({ path: ':memory:', log: createSilentLogger() })),
  destroy: (store: Store) => store.shutdown(),
};
describeStoreContract('duckdb (:memory:)', harness);
describeMonitoringContract('duckdb (:memory:)', harness);
describeRevisionContract('duckdb (:memory:)', harness);
describeReviewContract('duckdb (:memory:)', harness);
describeUnitsBatchContract('duckdb (:memory:)', harness);

describe('duckdb store on a file', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('creates the directory and keeps data across reopen', async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-'));
    dirs.push(base);
    const path = join(base, 'nested', randomUUID(), 'tracecheck.duckdb');
    const unit = makeUnit();
    const score = makeScore({ unit_id: unit.unit_id });

    const first = createDuckDbStore({ path, log: createSilentLogger() });
    await first.start();
    await first.writeUnits([unit]);
    await first.writeScores([score]);
    await first.shutdown();
    await first.shutdown();
    expect((await stat(path)).isFile()).toBe(true);

    const second = createDuckDbStore({ path, log: createSilentLogger() });
    await second.start();
    expect(await second.getUnit(unit.unit_id)).toEqual(unit);
    expect(await second.queryScores({ unitId: unit.unit_id })).toEqual([score]);
    await second.shutdown();
  });

  it("keeps a unit's JSON once, in its revision, and reads the latest revision's", async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-'));
    dirs.push(base);
    const path = join(base, 'once.duckdb');
    const unit = makeUnit();
    const store = createDuckDbStore({ path, log: createSilentLogger() });
    await store.start();
    await store.writeUnits([unit]);
    await store.writeUnits([{ ...unit, model_output: 'changed' }]);
    await store.writeUnits([unit]); // a replay of revision 1 does not make it the unit again
    expect(await store.getUnit(unit.unit_id)).toEqual({ ...unit, model_output: 'changed' });
    expect(await store.getUnit(unit.unit_id, 'default')).toEqual({ ...unit, model_output: 'changed' });
    await store.shutdown();
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    const units = (await c.runAndReadAll('SELECT unit_json FROM units')).getRowObjectsJS();
    const revisions = (await c.runAndReadAll('SELECT revision, length(unit_json) > 0 AS has_json FROM unit_revisions ORDER BY revision')).getRowObjectsJS();
    c.closeSync();
    instance.closeSync();
    expect(units).toEqual([{ unit_json: '' }]);
    expect(revisions).toEqual([{ revision: 1, has_json: true }, { revision: 2, has_json: true }]);
  });

  it('makes what a file from before revisions holds revision 1, with its scores, and revises from there', async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-'));
    dirs.push(base);
    const path = join(base, 'legacy.duckdb');
    const unit = makeUnit();
    const score = makeScore({ unit_id: unit.unit_id });
    const first = createDuckDbStore({ path, log: createSilentLogger() });
    await first.start();
    await first.writeUnits([unit]);
    await first.writeScores([score]);
    await first.shutdown();
    // What an earlier release left: no history tables, no revision columns, the unit's JSON in `units`.
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    for (const statement of ['UPDATE units SET unit_json = (SELECT r.unit_json FROM unit_revisions r WHERE r.unit_id = units.unit_id)', 'DROP TABLE unit_revisions', 'DROP TABLE score_revisions', 'ALTER TABLE units DROP COLUMN revision', 'ALTER TABLE scores DROP COLUMN unit_revision']) await c.run(statement);
    c.closeSync();
    instance.closeSync();

    const second = createDuckDbStore({ path, log: createSilentLogger() });
    await second.start();
    await expectLegacyMigrated(second, unit, score);
    await second.shutdown();
  });

  it("reports the bytes DuckDB's buffer pool holds, within its memory limit, as a metric", async () => {
    const base = await mkdtemp(join(tmpdir(), 'tracecheck-duckdb-mem-'));
    dirs.push(base);
    const store = createDuckDbStore({ path: join(base, 'db.duckdb'), log: createSilentLogger(), memoryLimit: '32MB' });
    expect(await store.memoryBytes!()).toBe(0); // not opened: nothing held
    await store.start();
    await store.writeUnits(Array.from({ length: 300 }, () => makeUnit({ model_output: 'x'.repeat(2_000) })));
    const held = await store.memoryBytes!();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(32 * 2 ** 20);
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.observeStoreMemory(() => store.memoryBytes!());
    const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith('tracecheck_store_memory_bytes '));
    expect(line).toBe(`tracecheck_store_memory_bytes ${held}`);
    await store.shutdown();
  });

  it('serializes concurrent writes and reads on one connection', async () => {
    const store = createDuckDbStore({ path: ':memory:', log: createSilentLogger() });
    await store.start();
    const check = `concurrent-${randomUUID()}`;
    const scores = Array.from({ length: 40 }, (_, i) => makeScore({ check, created_at_ms: 1_000 + i }));
    await Promise.all([
      ...scores.map((s) => store.writeScores([s])),
      ...scores.map(() => store.queryScores({ check })),
    ]);
    expect(await store.queryScores({ check })).toEqual([...scores].reverse());
    await store.shutdown();
  });
});
