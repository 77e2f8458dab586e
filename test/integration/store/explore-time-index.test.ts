import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, type ExploreQuery, type Store } from '../../../shared/adapters/store/index.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { makeUnit } from './store-fixtures.ts';

// ClickHouse's time-ordered table for the explorer (unit_times): what it holds after writes and
// revisions, a database from before it, and pages that cross every time window it is read in.

const admin = createAdminClient();
const project = `times-${randomUUID().slice(0, 8)}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const dbs: string[] = [];

const make = (database: string): Store => createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });

afterAll(async () => {
  for (const db of dbs) await admin.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await admin.close();
});

async function count(db: string): Promise<number> {
  const rows = await (await admin.query({ query: `SELECT count() AS n FROM ${db}.unit_times`, format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(rows[0]?.n);
}

async function pages(store: Store, q: Omit<ExploreQuery, 'project' | 'limit' | 'after'>, limit: number): Promise<string[]> {
  const out: string[] = [];
  let after: ExploreQuery['after'];
  for (let i = 0; i < 30; i++) {
    const page = await store.exploreUnits({ ...q, project, limit, ...(after ? { after } : {}) });
    out.push(...page.map((r) => r.unit_id));
    const last = page.at(-1);
    if (!last || page.length < limit) return out;
    after = { key: last.sort_key, unit_id: last.unit_id };
  }
  throw new Error('more than 30 pages');
}

// Ages that fall in each window (an hour, a day, a week, 30 days) and beyond them all.
const AGES = [10 * 60_000, 2 * HOUR, 3 * DAY, 10 * DAY, 45 * DAY, 400 * DAY];
const units = AGES.flatMap((age, i) => [0, 1].map((j) => makeUnit({ unit_id: `t${i}${j}`, project, agent_name: j === 0 ? 'even' : 'odd', end_time_ms: now - age - j, message_history: [{ role: 'user', content: `age ${i}` }] })));

describe('unit_times on clickhouse 18.16', () => {
  it('holds a row per written unit row and lists across every window, newest first', async () => {
    const db = randomDatabaseName('tc_times');
    dbs.push(db);
    const store = make(db);
    await store.start();
    try {
      await store.writeUnits(units);
      // A new revision of one unit adds a row; the list shows its latest form once.
      await store.writeUnits([makeUnit({ ...units[0], message_history: [{ role: 'user', content: 'revised' }] })]);
      expect(await count(db)).toBe(13);
      const all = units.map((u) => u.unit_id);
      expect(await pages(store, {}, 1)).toEqual(all);
      expect(await pages(store, {}, 5)).toEqual(all);
      expect(await pages(store, { agent: 'odd' }, 2)).toEqual(all.filter((id) => id.endsWith('1')));
      expect(await pages(store, { text: 'revised' }, 5)).toEqual(['t00']);
      expect(await pages(store, { text: 'age 0' }, 5)).toEqual(['t01']);
    } finally {
      await store.shutdown();
    }
  });

  it('a database from before it gets a copy of its units at start', async () => {
    const db = randomDatabaseName('tc_times_old');
    dbs.push(db);
    let store = make(db);
    await store.start();
    await store.writeUnits(units);
    await store.shutdown();
    await admin.command({ query: `DROP TABLE ${db}.unit_times` });
    store = make(db);
    await store.start();
    try {
      expect(await count(db)).toBe(12);
      expect(await pages(store, {}, 4)).toEqual(units.map((u) => u.unit_id));
    } finally {
      await store.shutdown();
    }
  });
});
