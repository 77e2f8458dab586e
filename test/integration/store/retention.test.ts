import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../services/api/src/index.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { createMetrics } from '../../../shared/kit/metrics/index.ts';
import { createRetentionJob, RETENTION_DOC_ID, RETENTION_DOC_KIND } from '../../../shared/kit/retention/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { RETAINED_DOC_KINDS } from '../../../cli/retained-docs.ts';
import { waitFor } from '../../helpers/infra.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { makeScore, makeUnit, T0 } from './store-fixtures.ts';

// Issue 24.3: with a retention of 1 day and the clock moved forward, old rows are gone from every
// table (units, unit_revisions, scores, score_revisions, alert history, problems' state changes: the
// document kinds `tracecheck up` cleans), newer ones untouched, a
// project with a longer retention of its own (the operator allows longer) keeps its rows, and the API answers meanwhile.

const DAY = 24 * 60 * 60 * 1000;
const TABLES = ['units', 'unit_revisions', 'scores', 'score_revisions'] as const;
const ALERT_EVENT = 'alert_event';

interface Seeded {
  old: string;
  fresh: string;
  longOld: string;
}

/** Three units with a score each: one 3 days old and one an hour old (default project), one 3 days old in project "long"; alert events of the same ages. */
async function seed(store: Store, now: number): Promise<Seeded> {
  const at = (ms: number, project: string) => {
    const unit = makeUnit({ assembled_at_ms: ms, start_time_ms: ms - 5_000, end_time_ms: ms - 1_000, project });
    return { unit, scores: [makeScore({ unit_id: unit.unit_id, created_at_ms: ms, unit_end_time_ms: ms - 1_000, project })] };
  };
  const items = [at(now - 3 * DAY, 'default'), at(now - 60 * 60 * 1000, 'default'), at(now - 3 * DAY, 'long')];
  await store.writeScoredUnits(items);
  await store.putDoc({ kind: ALERT_EVENT, project: 'default', id: 'e-old', body: { n: 1 }, updated_at_ms: now - 3 * DAY });
  await store.putDoc({ kind: ALERT_EVENT, project: 'default', id: 'e-fresh', body: { n: 2 }, updated_at_ms: now - 60_000 });
  await store.putDoc({ kind: ALERT_EVENT, project: 'long', id: 'e-long', body: { n: 3 }, updated_at_ms: now - 3 * DAY });
  // A problem's state changes are history too (issue 37); the problem itself is the miner's state.
  await store.putDoc({ kind: 'problem_event', project: 'default', id: 'pe-old', body: { n: 5 }, updated_at_ms: now - 3 * DAY });
  await store.putDoc({ kind: 'problem_event', project: 'default', id: 'pe-fresh', body: { n: 6 }, updated_at_ms: now - 60_000 });
  await store.putDoc({ kind: 'problem', project: 'default', id: 'p-old', body: { n: 7 }, updated_at_ms: now - 30 * DAY });
  // Not history: alert rules and the like stay whatever their age.
  await store.putDoc({ kind: 'alert_rule', project: 'default', id: 'r-old', body: { n: 4 }, updated_at_ms: now - 30 * DAY });
  await store.putDoc({ kind: RETENTION_DOC_KIND, project: 'long', id: RETENTION_DOC_ID, body: { days: 10 }, updated_at_ms: now - 30 * DAY });
  return { old: items[0].unit.unit_id, fresh: items[1].unit.unit_id, longOld: items[2].unit.unit_id };
}

type Counts = Record<string, number>;

/** What is left of each unit in each table, and of the documents. */
function expectedLeft(s: Seeded, removed: boolean): Counts {
  const out: Counts = {};
  for (const t of TABLES) {
    out[`${t}:old`] = removed ? 0 : 1;
    out[`${t}:fresh`] = 1;
    out[`${t}:longOld`] = 1;
  }
  Object.assign(out, { 'docs:e-old': removed ? 0 : 1, 'docs:e-fresh': 1, 'docs:e-long': 1, 'docs:r-old': 1, 'docs:retention': 1, 'docs:pe-old': removed ? 0 : 1, 'docs:pe-fresh': 1, 'docs:p-old': 1 });
  return out;
}

async function countWith(s: Seeded, one: (sql: string) => Promise<number>, docsTable: string): Promise<Counts> {
  const out: Counts = {};
  for (const t of TABLES) for (const [name, id] of Object.entries(s)) out[`${t}:${name}`] = await one(`SELECT count(*) AS n FROM ${t} WHERE unit_id = '${id}'`);
  for (const id of ['e-old', 'e-fresh', 'e-long', 'r-old', RETENTION_DOC_ID, 'pe-old', 'pe-fresh', 'p-old']) out[`docs:${id}`] = await one(`SELECT count(*) AS n FROM ${docsTable} WHERE id = '${id}'`);
  return out;
}

/** Runs a pass on the moved clock while the API is asked for units all along: every answer must be 200. */
async function passWhileServing(store: Store, now: () => number): Promise<number[]> {
  const log = createSilentLogger();
  const app = createApp({ store, log, now });
  const job = createRetentionJob({ store, days: 1, allowLonger: true, intervalMs: 60_000, docKinds: RETAINED_DOC_KINDS, now, log, metrics: createMetrics({ defaultMetrics: false }) });
  const statuses: number[] = [];
  let done = false;
  const asking = (async () => {
    while (!done || statuses.length === 0) statuses.push((await app.request('/api/v1/units?limit=10')).status);
  })();
  await job.runOnce();
  done = true;
  await asking;
  return statuses;
}

describe('retention on DuckDB', () => {
  it('removes rows older than a day from every table after a CHECKPOINT, keeps the rest', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tracecheck-retention-')), 'store.duckdb');
    const store = createDuckDbStore({ path, log: createSilentLogger() });
    await store.start();
    let clock = T0 - 4 * DAY;
    const seeded = await seed(store, T0);
    // Before the clock moves, a pass removes nothing.
    await passWhileServing(store, () => clock);
    clock = T0;
    const statuses = await passWhileServing(store, () => clock);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const bytes = await store.tableBytes!();
    expect(Object.keys(bytes).sort()).toEqual(expect.arrayContaining(['docs', 'scores', 'units']));
    await store.shutdown();

    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    try {
      const one = async (sql: string): Promise<number> => Number((await c.runAndReadAll(sql)).getRowObjectsJS()[0].n);
      expect(await countWith(seeded, one, 'docs')).toEqual(expectedLeft(seeded, true));
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });
});

describe('retention on ClickHouse 18.16 (ALTER … DELETE)', () => {
  const database = randomDatabaseName('tc_retention');
  const admin = createAdminClient();
  afterAll(async () => {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
  });

  it('removes rows older than a day from every table once the mutations ran, keeps the rest, answers meanwhile', async () => {
    const store = createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
    await store.start();
    try {
      const seeded = await seed(store, T0);
      const one = async (sql: string): Promise<number> => {
        const rs = await admin.query({ query: sql.replace(/ FROM (\w+)/, ` FROM ${database}.$1`), format: 'JSONEachRow' });
        return Number((await rs.json<{ n: string }>())[0].n);
      };
      let clock = T0 - 4 * DAY;
      await passWhileServing(store, () => clock);
      expect(await countWith(seeded, one, 'docs')).toEqual(expectedLeft(seeded, false));
      clock = T0;
      const statuses = await passWhileServing(store, () => clock);
      expect(new Set(statuses)).toEqual(new Set([200]));
      const want = expectedLeft(seeded, true);
      // Mutations run in the background: wait (bounded) until the rows are gone.
      await waitFor(async () => JSON.stringify(await countWith(seeded, one, 'docs')) === JSON.stringify(want), { timeoutMs: 120_000, intervalMs: 500, description: 'the retention mutations' });
      expect(await countWith(seeded, one, 'docs')).toEqual(want);
      const bytes = await store.tableBytes!();
      expect(bytes.units).toBeGreaterThan(0);
      expect(bytes.scores).toBeGreaterThan(0);
    } finally {
      await store.shutdown();
    }
  });
});
