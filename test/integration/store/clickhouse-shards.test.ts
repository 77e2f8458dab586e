import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, type ScoredUnit, type Store } from '../../../shared/adapters/store/index.ts';
import { uniqueName, waitFor } from '../../helpers/infra.ts';
import { CLUSTER_NAME, startPrivateCluster, type PrivateCluster } from '../../helpers/private-cluster.ts';
import { describeMonitoringContract } from './monitoring-contract.ts';
import { describeRevisionContract } from './revision-contract.ts';
import { describeStoreContract } from './store-contract.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// The store on a sharded ClickHouse (issue 24.2): ZooKeeper 3.8.4 and two Debian 18.16 servers as
// two shards of one replica each, this file's own. The tables are Distributed over Replicated ones
// (clickhouse-shards.ts); every unit's rows must land on one shard for FINAL and argMax to be right.

const CHECKS = ['answer_relevance', 'task_completed', 'loop_guard'] as const;
const TABLES = ['docs', 'score_revisions', 'scores', 'unit_revisions', 'units'];
const REQUEST_TIMEOUT_MS = 15_000;
const log = createSilentLogger();

let cluster: PrivateCluster;
const clients: ClickHouseClient[] = [];
const stores: Store[] = [];

beforeAll(async () => {
  cluster = await startPrivateCluster({ shards: 2, replicasPerShard: 1 });
}, 150_000);

afterAll(async () => {
  await Promise.all(stores.map((s) => s.shutdown()));
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.destroy();
});

const shardUrl = (i: number): string => cluster.servers[i].url;

function admin(url: string): ClickHouseClient {
  const client = createClient({ url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  clients.push(client);
  return client;
}

function store(url: string, database: string): Store {
  const s = createClickHouseStore({ url, database, cluster: CLUSTER_NAME, log, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  stores.push(s);
  return s;
}

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}

// The core contracts (units, revisions, scores, dedup, monitoring series) through shard 1's server.
const contractDatabase = uniqueName('tc_shards_contract');
const harness = { create: () => Promise.resolve(store(shardUrl(0), contractDatabase)), destroy: () => Promise.resolve() };
describeStoreContract('clickhouse 18.16, two shards', harness);
describeMonitoringContract('clickhouse 18.16, two shards', harness);
describeRevisionContract('clickhouse 18.16, two shards', harness);

describe('clickhouse store on two shards (two 18.16 servers, ZooKeeper 3.8.4)', () => {
  it("makes Distributed tables over Replicated ones on every shard; N units with revisions and their scores, none lost or doubled, each unit's rows on one shard", async () => {
    const database = uniqueName('tc_shards');
    const writer = store(shardUrl(0), database);
    const reader = store(shardUrl(1), database);
    await Promise.all([writer.start(), reader.start()]);
    for (const url of [shardUrl(0), shardUrl(1)]) {
      const tables = await rows<{ name: string; engine: string }>(admin(url), `SELECT name, engine FROM system.tables WHERE database = '${database}' ORDER BY name`);
      expect(tables).toEqual(TABLES.flatMap((name) => [{ name, engine: 'Distributed' }, { name: `${name}_local`, engine: 'ReplicatedReplacingMergeTree' }]));
    }

    const N = 90;
    const scored = (i: number, output: string): ScoredUnit => {
      const unit = makeUnit({ unit_id: `sharded-${i}`, model_output: output });
      return { unit, scores: CHECKS.map((check) => makeScore({ unit_id: unit.unit_id, check, explanation: output })) };
    };
    const first = Array.from({ length: N }, (_, i) => scored(i, 'first'));
    // Every third unit gets a second revision (new content, new scores): its first revision's scores
    // stay in the history only.
    const second = first.filter((_, i) => i % 3 === 0).map((_, k) => scored(k * 3, 'second'));
    expect((await writer.writeScoredUnits(first)).map((r) => ('revision' in r ? r.revision : r.refused))).toEqual(first.map(() => 1));
    expect((await writer.writeScoredUnits(second)).map((r) => ('revision' in r ? r.revision : r.refused))).toEqual(second.map(() => 2));
    // A redelivery of both adds nothing once deduplicated.
    await writer.writeScoredUnits(first);
    await writer.writeScoredUnits(second);

    // Through the other shard's server (inserts are synchronous: acknowledged means stored).
    const revisions = N + second.length;
    const [counts] = await rows<Record<string, string>>(
      admin(shardUrl(1)),
      `SELECT (SELECT count() FROM ${database}.units FINAL) AS units, (SELECT count() FROM ${database}.scores FINAL) AS scores,
        (SELECT count() FROM ${database}.unit_revisions FINAL) AS revisions, (SELECT count() FROM ${database}.score_revisions FINAL) AS score_revisions,
        (SELECT uniqExact(unit_id, \`check\`, check_version) FROM ${database}.scores) AS score_keys`,
    );
    expect(counts).toEqual({ units: String(N), scores: String(N * CHECKS.length), revisions: String(revisions), score_revisions: String(revisions * CHECKS.length), score_keys: String(N * CHECKS.length) });
    for (const check of CHECKS) {
      const scores = await reader.queryScores({ check, limit: 1000 });
      expect(scores).toHaveLength(N);
      expect(scores.filter((s) => s.explanation === 'second')).toHaveLength(second.length);
    }
    expect(await reader.listUnits({ limit: 1000 })).toHaveLength(N);
    expect(await reader.getUnit(second[1].unit.unit_id)).toEqual(second[1].unit);
    expect((await reader.listUnitRevisions(second[1].unit.unit_id)).map((r) => r.revision)).toEqual([1, 2]);
    const aggregate = await reader.aggregateScores({ check: 'loop_guard' });
    expect(aggregate.map((a) => a.total)).toEqual([N]);

    // Each shard holds some units, no unit is on both, and every row of a unit is where the unit is.
    const perShard: Set<string>[] = [];
    for (const url of [shardUrl(0), shardUrl(1)]) {
      const local = admin(url);
      const units = new Set((await rows<{ unit_id: string }>(local, `SELECT DISTINCT unit_id FROM ${database}.units_local`)).map((r) => r.unit_id));
      for (const table of ['scores_local', 'unit_revisions_local', 'score_revisions_local']) {
        const ids = (await rows<{ unit_id: string }>(local, `SELECT DISTINCT unit_id FROM ${database}.${table}`)).map((r) => r.unit_id);
        expect(ids.filter((id) => !units.has(id))).toEqual([]);
        expect(ids).toHaveLength(units.size);
      }
      perShard.push(units);
    }
    const [a, b] = perShard as [Set<string>, Set<string>];
    expect(a.size).toBeGreaterThan(0);
    expect(b.size).toBeGreaterThan(0);
    expect([...a].filter((id) => b.has(id))).toEqual([]);
    expect(a.size + b.size).toBe(N);
  });

  it('keeps documents (alert rules, keys) right across shards: the latest write of a key, deletes honoured', async () => {
    const database = uniqueName('tc_shards_docs');
    const s = store(shardUrl(0), database);
    await s.start();
    for (let i = 0; i < 20; i += 1) await s.putDoc({ kind: 'rule', project: 'p', id: `r${i}`, body: { v: 1 }, updated_at_ms: 1_000 + i });
    for (let i = 0; i < 20; i += 2) await s.putDoc({ kind: 'rule', project: 'p', id: `r${i}`, body: { v: 2 }, updated_at_ms: 2_000 + i });
    await s.deleteDoc('rule', 'p', 'r1');
    const docs = await store(shardUrl(1), database).listDocs({ kind: 'rule', project: 'p', limit: 100 });
    expect(docs).toHaveLength(19);
    expect(docs.filter((d) => (d.body as { v: number }).v === 2)).toHaveLength(10);
  });

  it('makes again a Distributed table that lacks a column of its local table (18.16 has no ALTER … ON CLUSTER for it)', async () => {
    const database = uniqueName('tc_shards_migrate');
    await store(shardUrl(0), database).start();
    // As a database from before a column was added: the Distributed tables lack it on both servers.
    for (const url of [shardUrl(0), shardUrl(1)]) await admin(url).command({ query: `ALTER TABLE ${database}.units DROP COLUMN revision` });
    const again = store(shardUrl(1), database);
    await again.start();
    for (const url of [shardUrl(0), shardUrl(1)]) {
      const cols = await rows<{ n: string }>(admin(url), `SELECT count() AS n FROM system.columns WHERE database = '${database}' AND table = 'units' AND name = 'revision'`);
      expect(cols).toEqual([{ n: '1' }]);
    }
    const unit = makeUnit({ unit_id: 'after-migration' });
    await again.writeUnits([unit]);
    expect(await store(shardUrl(0), database).getUnit(unit.unit_id)).toEqual(unit);
  });

  it('removes old rows on every shard (retention: ALTER … DELETE on the local tables ON CLUSTER), newer ones untouched', async () => {
    const database = uniqueName('tc_shards_retention');
    const s = store(shardUrl(0), database);
    await s.start();
    const old = Array.from({ length: 20 }, (_, i) => makeUnit({ unit_id: `old-${i}`, assembled_at_ms: 1_000_000 }));
    const fresh = Array.from({ length: 20 }, (_, i) => makeUnit({ unit_id: `new-${i}` }));
    await s.writeUnits([...old, ...fresh]);
    await s.removeOlderThan!({ cutoffMs: 2_000_000, docKinds: [] });
    // Mutations run in the background on each shard.
    const left = async (): Promise<string[]> => (await rows<{ unit_id: string }>(admin(shardUrl(1)), `SELECT unit_id FROM ${database}.units ORDER BY unit_id`)).map((r) => r.unit_id);
    await waitFor(async () => (await left()).length === fresh.length, { timeoutMs: 60_000, intervalMs: 250, description: 'old units removed on both shards' });
    expect(await left()).toEqual(fresh.map((u) => u.unit_id).sort());
  });

  it("reports each table's bytes over both shards (the retention job's gauge), under the Distributed names", async () => {
    const database = uniqueName('tc_shards_bytes');
    const s = store(shardUrl(0), database);
    await s.start();
    await s.writeUnits(Array.from({ length: 40 }, (_, i) => makeUnit({ unit_id: `bytes-${i}` })));
    const localBytes = async (i: number): Promise<number> =>
      Number((await rows<{ b: string }>(admin(shardUrl(i)), `SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = '${database}' AND table = 'units_local' AND active`))[0].b);
    const [first, second] = [await localBytes(0), await localBytes(1)];
    // 40 ids spread by their hash: both shards hold some.
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    const bytes = await s.tableBytes!();
    expect(bytes.units).toBe(first + second);
    expect(Object.keys(bytes)).not.toContain('units_local');
  });

  it('refuses, before any DDL, a database whose tables were made for a single server', async () => {
    const database = uniqueName('tc_shards_plain');
    const plain = createClickHouseStore({ url: shardUrl(0), database, log, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    stores.push(plain);
    await plain.start();
    await expect(store(shardUrl(0), database).start()).rejects.toThrow(/tables of .* are not all sharded/);
    expect(await rows(admin(shardUrl(1)), `SELECT count() AS n FROM system.databases WHERE name = '${database}'`)).toEqual([{ n: '0' }]);
  });
});
