import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, createDuckDbStore, type ScoreBadge, type Store } from '../../../shared/adapters/store/index.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';

// The explorer's score badges through every way scores change (issue 34): written with their unit,
// written on their own, re-scored, of an older revision (not shown), of a new check version, and
// on DuckDB (where each unit row carries them) after a retention cut and in a file from before them.

const database = randomDatabaseName('tc_badges');
const admin = createAdminClient();
const project = `badges-${randomUUID().slice(0, 8)}`;

const stores: Array<[string, () => Store]> = [
  ['duckdb', () => createDuckDbStore({ path: ':memory:', log: createSilentLogger() })],
  ['clickhouse 18.16', () => createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })],
];

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

const badge = (check: string, passed: boolean | null, extra: Partial<ScoreBadge> = {}): ScoreBadge => ({ check, check_version: '1', status: 'ok', passed, value: passed === null ? null : passed ? 1 : 0, ...extra });

async function badgesOf(store: Store): Promise<Record<string, ScoreBadge[]>> {
  const rows = await store.exploreUnits({ project, limit: 100 });
  return Object.fromEntries(rows.map((r) => [r.unit_id, r.scores]));
}

describe.each(stores)('score badges: %s', (_label, create) => {
  let store: Store;
  const a = (content: string) => makeUnit({ unit_id: 'b-a', project, end_time_ms: T0 - 1_000, message_history: [{ role: 'user', content }] });
  const b = makeUnit({ unit_id: 'b-b', project, end_time_ms: T0 - 2_000 });
  const score = (unit_id: string, check: string, passed: boolean, extra: Parameters<typeof makeScore>[0] = {}) =>
    makeScore({ unit_id, project, check, passed, value: passed ? 1 : 0, created_at_ms: T0, ...extra });

  beforeAll(async () => {
    store = create();
    await store.start();
  });
  afterAll(async () => {
    await store.shutdown();
  });

  it('follows every write of scores', async () => {
    await store.writeScoredUnits([
      { unit: a('first words'), scores: [score('b-a', 'grounded', true)] },
      { unit: b, scores: [] },
    ]);
    expect(await badgesOf(store)).toEqual({ 'b-a': [badge('grounded', true)], 'b-b': [] });

    // Scores on their own: a re-score replaces the verdict; a unit's first score appears; a score of no stored unit changes nothing.
    await store.writeScores([score('b-a', 'grounded', false), score('b-b', 'polite', true, { unit_revision: undefined }), score('b-none', 'grounded', true)]);
    expect(await badgesOf(store)).toEqual({ 'b-a': [badge('grounded', false)], 'b-b': [badge('polite', true)] });

    // A new revision keeps the scores stored; a late score of the older revision is not shown.
    await store.writeUnits([a('second words')]);
    await store.writeScores([score('b-a', 'grounded', true, { unit_revision: 1 })]);
    expect(await badgesOf(store)).toEqual({ 'b-a': [badge('grounded', false)], 'b-b': [badge('polite', true)] });

    // A third revision with a new check version and an errored judge: badges sorted by check, then version.
    await store.writeScoredUnits([
      {
        unit: a('third words'),
        scores: [score('b-a', 'grounded', true, { check_version: '2', unit_revision: 3 }), score('b-a', 'answer "quoted" \\ check', false, { status: 'error', passed: null, value: null, error: 'judge down', unit_revision: 3 })],
      },
    ]);
    expect((await badgesOf(store))['b-a']).toEqual([badge('answer "quoted" \\ check', null, { status: 'error' }), badge('grounded', false), badge('grounded', true, { check_version: '2' })]);
  });
});

describe('score badges on duckdb', () => {
  it('a retention cut removes the badges of deleted scores from kept units', async () => {
    const store = createDuckDbStore({ path: ':memory:', log: createSilentLogger() });
    await store.start();
    try {
      const unit = makeUnit({ unit_id: 'r-1', project, assembled_at_ms: T0 });
      await store.writeScoredUnits([{ unit, scores: [makeScore({ unit_id: 'r-1', project, check: 'old', created_at_ms: T0 - 10_000_000 }), makeScore({ unit_id: 'r-1', project, check: 'new', created_at_ms: T0 })] }]);
      await store.removeOlderThan?.({ cutoffMs: T0 - 1_000_000, docKinds: [] });
      const [row] = await store.exploreUnits({ project });
      expect(row.scores.map((s) => s.check)).toEqual(['new']);
    } finally {
      await store.shutdown();
    }
  });

  it('a file from before the badges gets them at start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tracecheck-badges-'));
    try {
      const path = join(dir, 'store.duckdb');
      let store = createDuckDbStore({ path, log: createSilentLogger() });
      await store.start();
      await store.writeScoredUnits([
        { unit: makeUnit({ unit_id: 'm-1', project, end_time_ms: T0 - 1 }), scores: [makeScore({ unit_id: 'm-1', project, check: 'polite', passed: false, value: 0 }), makeScore({ unit_id: 'm-1', project, check: 'grounded' })] },
        { unit: makeUnit({ unit_id: 'm-2', project, end_time_ms: T0 - 2 }), scores: [] },
      ]);
      await store.shutdown();
      const instance = await DuckDBInstance.create(path);
      const c = await instance.connect();
      await c.run('ALTER TABLE units DROP COLUMN score_badges');
      c.closeSync();
      instance.closeSync();
      store = createDuckDbStore({ path, log: createSilentLogger() });
      await store.start();
      const rows = await store.exploreUnits({ project });
      expect(rows.map((r) => [r.unit_id, r.scores.map((s) => `${s.check}:${String(s.passed)}:${String(s.value)}`)])).toEqual([
        ['m-1', ['grounded:true:0.75', 'polite:false:0']],
        ['m-2', []],
      ]);
      await store.shutdown();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
