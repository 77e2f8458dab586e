import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, createDuckDbStore, type ExploreQuery, type ExploreRow, type Store } from '../../../shared/adapters/store/index.ts';
import type { Unit, UnitStep } from '../../../shared/contracts/schemas/index.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { T0, makeScore, makeUnit } from './store-fixtures.ts';
import { useChdbServer } from '../../helpers/chdb-server/use-chdb-server.ts';

// The explorer's listing (issue 34) on both stores: every filter, the free-text search, the sorts
// and their cursors (ties, concurrent inserts), the project scope and latest-revision reads.

const database = randomDatabaseName('tc_explore');
const admin = createAdminClient();
// The current engine (26.7) takes the ngram search index and its LIKE path.
const chdb = useChdbServer();
const project = `explore-${randomUUID().slice(0, 8)}`;
const other = `${project}-other`;

const tool = (name: string, status: 'ok' | 'error' = 'ok'): UnitStep => ({ type: 'tool', agent: 'a', start_ms: 0, name, call_id: null, latency_ms: 5, status });
const llm = (model: string): UnitStep => ({ type: 'llm', agent: 'a', start_ms: 0, model, provider: null, input_tokens: 1, output_tokens: 1, latency_ms: 5, status: 'ok', cost_usd: 0.001 });

// Twelve units: ids e00…e11; units 0–5 end at the same ms (ties); cost, duration and tokens vary.
function fixtures(): Unit[] {
  return Array.from({ length: 12 }, (_, i) =>
    makeUnit({
      unit_id: `e${String(i).padStart(2, '0')}`,
      project,
      kind: i === 11 ? 'session' : 'trace',
      agent_name: i % 2 === 0 ? 'billing' : 'triage',
      model: i % 3 === 0 ? 'gpt-4o' : 'claude-sonnet-4',
      start_time_ms: T0 - 100_000,
      end_time_ms: i < 6 ? T0 : T0 - i * 1_000,
      message_history: [
        { role: 'user', content: i === 4 ? 'My Parcel never ARRIVED at Zürich' : `question ${i}` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: i === 7 ? '{"sku":"X-99%_\\\\ \'q\'"}' : '{}' } }] },
        { role: 'tool', content: i === 9 ? 'refund granted' : 'ok', tool_call_id: 'c1' },
      ],
      steps: [llm(i % 4 === 0 ? 'o3-mini' : 'gpt-4o'), tool(i % 2 === 0 ? 'lookup' : 'refund', i === 5 ? 'error' : 'ok'), tool('tab\tname')],
      llm_calls: 1,
      tool_call_count: 2,
      cost_usd: i === 10 ? undefined : (i % 5) / 100,
      duration_ms: 1_000 * ((i * 7) % 12),
      usage: { input_tokens: 10 * i, output_tokens: 5, total_tokens: 10 * i + 5 },
      errors: i === 5 ? [{ span_id: 's', type: 'ToolError', message: 'boom' }] : [],
    }),
  );
}

const ids = (rows: readonly ExploreRow[]): string[] => rows.map((r) => r.unit_id);

async function allPages(store: Store, q: Omit<ExploreQuery, 'project' | 'limit' | 'after'>, limit: number): Promise<string[]> {
  const out: string[] = [];
  let after: ExploreQuery['after'];
  for (let i = 0; i < 20; i++) {
    const page = await store.exploreUnits({ ...q, project, limit, ...(after ? { after } : {}) });
    out.push(...ids(page));
    const last = page.at(-1);
    if (!last || page.length < limit) return out;
    after = { key: last.sort_key, unit_id: last.unit_id };
  }
  throw new Error('more than 20 pages');
}

const stores: Array<[string, () => Store]> = [
  ['duckdb', () => createDuckDbStore({ path: ':memory:', log: createSilentLogger() })],
  ['clickhouse 18.16', () => createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })],
  ['clickhouse 26.7 (chdb)', () => createClickHouseStore({ url: chdb.url(), database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })],
];

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe.each(stores)('explorer listing: %s', (_label, create) => {
  let store: Store;
  beforeAll(async () => {
    store = create();
    await store.start();
    await store.writeScoredUnits(
      fixtures().map((unit, i) => ({
        unit,
        scores: [makeScore({ unit_id: unit.unit_id, project, check: 'grounded', passed: i % 3 !== 0, value: i % 3 !== 0 ? 1 : 0 }), ...(i === 8 ? [makeScore({ unit_id: unit.unit_id, project, check: 'polite', status: 'error', passed: null, value: null, error: 'judge down' })] : [])],
      })),
    );
    // Another project's unit that would match every filter is never listed.
    await store.writeUnits([makeUnit({ unit_id: 'x-other', project: other, agent_name: 'billing', end_time_ms: T0 + 1 })]);
  });
  afterAll(async () => {
    await store.shutdown();
  });

  it('lists newest first, ties broken by unit id, and pages through every unit once', async () => {
    const first = await store.exploreUnits({ project, limit: 100 });
    expect(ids(first)).toEqual(['e00', 'e01', 'e02', 'e03', 'e04', 'e05', 'e06', 'e07', 'e08', 'e09', 'e10', 'e11']);
    expect(await allPages(store, {}, 4)).toEqual(ids(first));
    expect(await allPages(store, {}, 5)).toEqual(ids(first));
  });

  it('a page cursor is stable under inserts of newer units and of ties before it', async () => {
    const page1 = await store.exploreUnits({ project, limit: 3 });
    expect(ids(page1)).toEqual(['e00', 'e01', 'e02']);
    await store.writeUnits([makeUnit({ unit_id: 'd99', project: `${project}-late`, end_time_ms: T0 }), makeUnit({ unit_id: 'e00a', project: `${project}-late`, end_time_ms: T0 + 5 })]);
    const last = page1[2];
    const page2 = await store.exploreUnits({ project, limit: 3, after: { key: last.sort_key, unit_id: last.unit_id } });
    expect(ids(page2)).toEqual(['e03', 'e04', 'e05']);
  });

  it('carries figures and the latest scores as badges', async () => {
    const [row] = await store.exploreUnits({ project, agent: 'billing', limit: 1, sort: 'time', order: 'asc', kind: 'trace' });
    expect(row.unit_id).toBe('e10');
    expect(row).toMatchObject({ agent_name: 'billing', cost_usd: null, duration_ms: 10_000, input_tokens: 100, output_tokens: 5, tool_calls: 2, errored: false, sort_key: T0 - 10_000 });
    expect(row.scores).toEqual([{ check: 'grounded', check_version: '1', status: 'ok', passed: true, value: 1 }]);
    const [e8] = await store.exploreUnits({ project, text: 'question 8', limit: 5 });
    expect(e8.scores.map((s) => `${s.check}:${s.status}`)).toEqual(['grounded:ok', 'polite:error']);
  });

  it('filters by agent, kind, model (the unit or any call), tool, status, cost and duration', async () => {
    const q = async (f: Omit<ExploreQuery, 'project'>): Promise<string[]> => ids(await store.exploreUnits({ project, ...f }));
    expect(await q({ agent: 'triage' })).toEqual(['e01', 'e03', 'e05', 'e07', 'e09', 'e11']);
    expect(await q({ kind: 'session' })).toEqual(['e11']);
    expect(await q({ model: 'o3-mini' })).toEqual(['e00', 'e04', 'e08']);
    expect(await q({ model: 'gpt-4o' })).toEqual(['e00', 'e01', 'e02', 'e03', 'e05', 'e06', 'e07', 'e09', 'e10', 'e11']);
    expect(await q({ tool: 'refund' })).toEqual(['e01', 'e03', 'e05', 'e07', 'e09', 'e11']);
    expect(await q({ tool: 'tab\tname', agent: 'billing', fromMs: T0 - 3_000 })).toEqual(['e00', 'e02', 'e04']);
    expect(await q({ tool: 'look' })).toEqual([]);
    expect(await q({ status: 'error' })).toEqual(['e05']);
    expect(await q({ status: 'ok', agent: 'triage' })).toEqual(['e01', 'e03', 'e07', 'e09', 'e11']);
    expect(await q({ costMin: 0.02, costMax: 0.03 })).toEqual(['e02', 'e03', 'e07', 'e08']);
    expect(await q({ durationMinMs: 9_000, durationMaxMs: 11_000 })).toEqual(['e03', 'e05', 'e10']);
    expect(await q({ fromMs: T0 - 8_000, toMs: T0 - 6_000 })).toEqual(['e07', 'e08']);
    expect(await q({ agent: 'nobody' })).toEqual([]);
  });

  it('filters by a check and its verdict', async () => {
    const q = async (f: Omit<ExploreQuery, 'project'>): Promise<string[]> => ids(await store.exploreUnits({ project, ...f }));
    expect(await q({ check: 'grounded', verdict: 'fail' })).toEqual(['e00', 'e03', 'e06', 'e09']);
    expect(await q({ check: 'grounded', verdict: 'pass', agent: 'billing' })).toEqual(['e02', 'e04', 'e08', 'e10']);
    expect(await q({ check: 'polite' })).toEqual(['e08']);
    expect(await q({ check: 'polite', verdict: 'error' })).toEqual(['e08']);
    expect(await q({ check: 'polite', verdict: 'not_run' })).toEqual([]);
  });

  it('searches the dialog, tool arguments and results, case-insensitively, every word', async () => {
    const q = async (text: string): Promise<string[]> => ids(await store.exploreUnits({ project, text }));
    expect(await q('parcel')).toEqual(['e04']);
    expect(await q('ZÜRICH arrived')).toEqual(['e04']);
    expect(await q('parcel refund')).toEqual([]);
    expect(await q('refund granted')).toEqual(['e09']);
    expect(await q(`X-99%_\\ 'q'`)).toEqual(['e07']);
    expect(await q('%')).toEqual(['e07']);
    expect(await q('11 QUESTION')).toEqual(['e11']);
  });

  it('sorts by cost, duration and tokens both ways, with cursors through ties', async () => {
    const byCost = await allPages(store, { sort: 'cost' }, 5);
    expect(byCost).toEqual(['e04', 'e09', 'e03', 'e08', 'e02', 'e07', 'e01', 'e06', 'e11', 'e00', 'e05', 'e10']);
    expect(await allPages(store, { sort: 'cost', order: 'asc' }, 3)).toEqual(['e10', 'e00', 'e05', 'e01', 'e06', 'e11', 'e02', 'e07', 'e03', 'e08', 'e04', 'e09']);
    expect(await allPages(store, { sort: 'duration' }, 4)).toEqual(['e05', 'e10', 'e03', 'e08', 'e01', 'e06', 'e11', 'e04', 'e09', 'e02', 'e07', 'e00']);
    expect(await allPages(store, { sort: 'tokens', agent: 'triage' }, 2)).toEqual(['e11', 'e09', 'e07', 'e05', 'e03', 'e01']);
  });

  it('reads the latest revision only: a unit whose dialog changed is found by its new words', async () => {
    const unit = makeUnit({ unit_id: 'rev-1', project, agent_name: 'reviser', message_history: [{ role: 'user', content: 'first draft wording' }], end_time_ms: T0 - 50_000 });
    await store.writeUnits([unit]);
    await store.writeUnits([{ ...unit, message_history: [{ role: 'user', content: 'second wording' }], assembled_at_ms: unit.assembled_at_ms + 1, agent_name: 'reviser2' }]);
    expect(ids(await store.exploreUnits({ project, text: 'draft' }))).toEqual([]);
    expect(ids(await store.exploreUnits({ project, text: 'second' }))).toEqual(['rev-1']);
    expect(ids(await store.exploreUnits({ project, agent: 'reviser' }))).toEqual([]);
  });

  it('finds a page past many superseded revisions that matched the filters', async () => {
    const stale = Array.from({ length: 25 }, (_, i) => makeUnit({ unit_id: `crowd-${String(i).padStart(2, '0')}`, project, agent_name: 'crowd', end_time_ms: T0 + 100 + i }));
    await store.writeUnits(stale);
    await store.writeUnits(stale.map((u) => ({ ...u, agent_name: 'moved', assembled_at_ms: u.assembled_at_ms + 1 })));
    await store.writeUnits([makeUnit({ unit_id: 'crowd-real', project, agent_name: 'crowd', end_time_ms: T0 - 1 })]);
    expect(ids(await store.exploreUnits({ project, agent: 'crowd', limit: 1 }))).toEqual(['crowd-real']);
    expect(ids(await store.exploreUnits({ project, agent: 'moved', limit: 2 }))).toEqual(['crowd-24', 'crowd-23']);
  });
});

describe.each(stores)('explorer pages through time windows: %s', (_label, create) => {
  // Thirty units ten minutes apart and one a month older: a page after a cursor reads the hour
  // and the day before it first, and the whole table when they do not fill it.
  const spread = `${project}-spread`;
  const units = [...Array.from({ length: 30 }, (_, i) => makeUnit({ unit_id: `w${String(i).padStart(2, '0')}`, project: spread, end_time_ms: T0 - i * 600_000 })), makeUnit({ unit_id: 'w-old', project: spread, end_time_ms: T0 - 30 * 86_400_000 })];
  let store: Store;
  beforeAll(async () => {
    store = create();
    await store.start();
    await store.writeUnits(units);
    // A superseded revision inside the first window that no longer matches the agent filter.
    await store.writeUnits([{ ...units[1], agent_name: 'moved', assembled_at_ms: units[1].assembled_at_ms + 1 }]);
  });
  afterAll(async () => {
    await store.shutdown();
  });

  const pages = async (q: Omit<ExploreQuery, 'project' | 'limit' | 'after'>, limit: number): Promise<string[]> => {
    const out: string[] = [];
    let after: ExploreQuery['after'];
    for (let i = 0; i < 40; i++) {
      const page = await store.exploreUnits({ ...q, project: spread, limit, ...(after ? { after } : {}) });
      out.push(...ids(page));
      const last = page.at(-1);
      if (!last || page.length < limit) return out;
      after = { key: last.sort_key, unit_id: last.unit_id };
    }
    throw new Error('more than 40 pages');
  };

  it('lists every unit once, newest first, with small and large pages', async () => {
    const all = units.map((u) => u.unit_id);
    expect(await pages({}, 2)).toEqual(all);
    expect(await pages({}, 7)).toEqual(all);
    expect(await pages({ agent: units[0].agent_name ?? '' }, 3)).toEqual(all.filter((id) => id !== 'w01'));
    expect(await pages({ agent: 'moved' }, 3)).toEqual(['w01']);
  });
});

describe('the search index on the current engine', () => {
  it('units carry an ngram skip index on search_text; 18.16 has none', async () => {
    const query = `SELECT name, type_full FROM system.data_skipping_indices WHERE database = '${database}' AND table = 'units'`;
    expect(await (await chdb.admin().query({ query, format: 'JSONEachRow' })).json()).toEqual([{ name: 'search_text_ngrams', type_full: 'ngrambf_v1(3, 32768, 2, 0)' }]);
    const old = await (await admin.query({ query: `SELECT count() AS n FROM system.tables WHERE database = '${database}' AND name = 'units'`, format: 'JSONEachRow' })).json<{ n: string }>();
    expect(old).toEqual([{ n: '1' }]);
  });
});

describe('the search text of units stored before it', () => {
  it('duckdb: an older file is searched after its migration', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tracecheck-explore-'));
    try {
      const path = join(dir, 'store.duckdb');
      let store = createDuckDbStore({ path, log: createSilentLogger() });
      await store.start();
      await store.writeUnits([makeUnit({ unit_id: 'old-1', project, message_history: [{ role: 'user', content: 'Legacy Words' }] })]);
      await store.shutdown();
      const instance = await DuckDBInstance.create(path);
      const c = await instance.connect();
      await c.run('ALTER TABLE units DROP COLUMN search_text');
      c.closeSync();
      instance.closeSync();
      store = createDuckDbStore({ path, log: createSilentLogger() });
      await store.start();
      expect(ids(await store.exploreUnits({ project, text: 'legacy words' }))).toEqual(['old-1']);
      await store.shutdown();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('clickhouse 18.16: a table from before the column is searched in its JSON', async () => {
    const db = randomDatabaseName('tc_explore_old');
    const make = (): Store => createClickHouseStore({ url: CLICKHOUSE_URL, database: db, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      let store = make();
      await store.start();
      await store.writeUnits([makeUnit({ unit_id: 'old-1', project, message_history: [{ role: 'user', content: 'Legacy Words' }] })]);
      await store.shutdown();
      await admin.command({ query: `ALTER TABLE ${db}.units DROP COLUMN search_text` });
      store = make();
      await store.start();
      expect(ids(await store.exploreUnits({ project, text: 'legacy words' }))).toEqual(['old-1']);
      await store.shutdown();
    } finally {
      await admin.command({ query: `DROP DATABASE IF EXISTS ${db}` });
    }
  });
});
