import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createSilentLogger, type Logger } from '../../../shared/runtime/logging/index.ts';
import { createKafkaBus } from '../../../shared/adapters/bus/index.ts';
import { createCheckRegistry } from '../../../shared/engines/checks/index.ts';
import { createScorer } from '../../../services/scorer/src/index.ts';
import { createClickHouseStore, type ScoredUnit, type Store } from '../../../shared/adapters/store/index.ts';
import { testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { CLUSTER_NAME, startPrivateCluster, type PrivateCluster } from '../../helpers/private-cluster.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// The store on a replicated ClickHouse (issue 24.2): ZooKeeper 3.8.4 and two Debian 18.16 servers
// as two replicas of one shard, all of this file's own (the shared server is never stopped).

const CHECKS = ['answer_relevance', 'task_completed', 'loop_guard'] as const;
const TABLES = ['docs', 'score_revisions', 'scores', 'unit_revisions', 'units'];
const REQUEST_TIMEOUT_MS = 15_000;
const log = createSilentLogger();

let cluster: PrivateCluster;
const clients: ClickHouseClient[] = [];
const stores: Store[] = [];

beforeAll(async () => {
  cluster = await startPrivateCluster();
}, 150_000);

afterAll(async () => {
  await Promise.all(stores.map((s) => s.shutdown()));
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.destroy();
});

function admin(url: string): ClickHouseClient {
  const client = createClient({ url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  clients.push(client);
  return client;
}

function store(url: string, database: string, extra: { insertQuorum?: number; log?: Logger } = {}): Store {
  const s = createClickHouseStore({ url, database, cluster: CLUSTER_NAME, log, requestTimeoutMs: REQUEST_TIMEOUT_MS, ...extra });
  stores.push(s);
  return s;
}

/** `count` units, each with a score of every check. */
function scoredUnits(prefix: string, count: number): ScoredUnit[] {
  return Array.from({ length: count }, (_, i) => {
    const unit = makeUnit({ unit_id: `${prefix}-${i}` });
    return { unit, scores: CHECKS.map((check) => makeScore({ unit_id: unit.unit_id, check })) };
  });
}

interface Counts {
  units: number;
  scores: number;
  scoreKeys: number;
  revisions: number;
}

/** What one replica holds after dedup (FINAL), and how many distinct score keys. */
async function counts(client: ClickHouseClient, database: string): Promise<Counts> {
  const rs = await client.query({
    query: `SELECT (SELECT count() FROM ${database}.units FINAL) AS units, (SELECT count() FROM ${database}.scores FINAL) AS scores,
      (SELECT uniqExact(unit_id, \`check\`, check_version) FROM ${database}.scores) AS scoreKeys, (SELECT count() FROM ${database}.unit_revisions FINAL) AS revisions`,
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<Record<keyof Counts, string | number>>();
  return { units: Number(row.units), scores: Number(row.scores), scoreKeys: Number(row.scoreKeys), revisions: Number(row.revisions) };
}

const expected = (units: number): Counts => ({ units, scores: units * CHECKS.length, scoreKeys: units * CHECKS.length, revisions: units });

async function unitIds(client: ClickHouseClient, database: string): Promise<Set<string>> {
  const rs = await client.query({ query: `SELECT unit_id FROM ${database}.units FINAL`, format: 'JSONEachRow' });
  return new Set((await rs.json<{ unit_id: string }>()).map((r) => r.unit_id));
}

describe('clickhouse store on a replicated cluster (two 18.16 replicas, ZooKeeper 3.8.4)', () => {
  it('makes replicated tables on every replica; what is written through one is read through the other', async () => {
    const [r1, r2] = cluster.replicas;
    const database = uniqueName('tc_cluster');
    const writer = store(r1.url, database);
    const reader = store(r2.url, database);
    // Two processes migrate a new database at once through different replicas (each holds the schema
    // lease of its own server): the ON CLUSTER steps are idempotent, so both finish.
    await Promise.all([writer.start(), reader.start()]);
    const tables = await admin(r2.url).query({ query: `SELECT name, engine FROM system.tables WHERE database = '${database}' ORDER BY name`, format: 'JSONEachRow' });
    expect(await tables.json()).toEqual(TABLES.map((name) => ({ name, engine: 'ReplicatedReplacingMergeTree' })));

    const items = scoredUnits('read-other', 20);
    await writer.writeScoredUnits(items);
    // A second write of the same units and scores (a redelivery) adds nothing once deduplicated.
    await writer.writeScoredUnits(items);
    await waitFor(async () => (await reader.queryScores({ check: 'loop_guard', limit: 1000 })).length === 20, { timeoutMs: 60_000, intervalMs: 250, description: '20 loop_guard scores on replica 2' });
    // Each table replicates on its own: wait for all of them, not the scores alone.
    await waitFor(async () => JSON.stringify(await counts(admin(r2.url), database)) === JSON.stringify(expected(20)), { timeoutMs: 60_000, intervalMs: 250, description: '20 units, their revisions and 60 scores on replica 2' });
    expect(await counts(admin(r2.url), database)).toEqual(expected(20));
    expect(await reader.getUnit(items[7].unit.unit_id)).toEqual(items[7].unit);
    for (const check of CHECKS) expect(await reader.queryScores({ check, limit: 1000 })).toHaveLength(20);

    // With an insert quorum of 2, an acknowledged write is on both replicas at once: no wait.
    const quorumWriter = store(r1.url, database, { insertQuorum: 2 });
    await quorumWriter.writeScoredUnits(scoredUnits('quorum', 5));
    expect(await counts(admin(r2.url), database)).toEqual(expected(25));
  });

  it('refuses, before any DDL, a database whose tables were made without the cluster setting', async () => {
    const [r1, r2] = cluster.replicas;
    const database = uniqueName('tc_cluster_plain');
    const plain = createClickHouseStore({ url: r1.url, database, log, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    stores.push(plain);
    await plain.start();
    await expect(store(r1.url, database).start()).rejects.toThrow(/tables of .* are not all replicated/);
    const elsewhere = await admin(r2.url).query({ query: `SELECT count() AS n FROM system.databases WHERE name = '${database}'`, format: 'JSONEachRow' });
    expect(await elsewhere.json()).toEqual([{ n: '0' }]);
  });

  it('goes on writing through the other replica when one stops under load: nothing lost or doubled, and the stopped one catches up', async () => {
    const [r1, r2] = cluster.replicas;
    const database = uniqueName('tc_cluster_failover');
    const warnings: string[] = [];
    const writer = store(`${r1.url},${r2.url}`, database, { log: createLogger({ level: 'warn', destination: { write: (line: string) => void warnings.push(line) } }) });
    await writer.start();
    const BATCHES = 16;
    const PER_BATCH = 10;
    const STOP_AT = 6;
    const written: ScoredUnit[][] = [];
    let stopping: Promise<void> | null = null;
    for (let b = 0; b < BATCHES; b += 1) {
      const batch = scoredUnits(`failover-${b}`, PER_BATCH);
      // Every write is acknowledged: the store moves to replica 2 itself; no retry here.
      const writing = writer.writeScoredUnits(batch);
      // The replica dies while this write is under way (SIGKILL: no goodbye to ZooKeeper).
      if (b === STOP_AT) stopping = sleep(10).then(() => r1.stop());
      const results = await writing;
      expect(results.map((r) => ('revision' in r ? r.revision : r.refused))).toEqual(batch.map(() => 1));
      written.push(batch);
    }
    await stopping;
    // It did move, once, and only after the stop.
    const switches = warnings.map((l) => JSON.parse(l) as { msg: string; from?: string; to?: string }).filter((l) => l.msg === 'clickhouse: switched to another replica');
    expect(switches.map((l) => [l.from, l.to])).toEqual([[r1.url, r2.url]]);

    // While replica 1 is down, replica 2 holds every unit written after the switch.
    const onR2 = await unitIds(admin(r2.url), database);
    const afterSwitch = written.slice(STOP_AT + 1).flat().map((s) => s.unit.unit_id);
    expect(afterSwitch.filter((id) => !onR2.has(id))).toEqual([]);

    // Replica 1 returns and fetches what it missed; both then hold exactly N units and N × checks scores.
    await r1.start();
    const total = BATCHES * PER_BATCH;
    for (const url of [r1.url, r2.url]) {
      const client = admin(url);
      // Each table replicates on its own: wait for all of them, not the first two.
      await waitFor(async () => JSON.stringify(await counts(client, database)) === JSON.stringify(expected(total)), {
        timeoutMs: 90_000,
        intervalMs: 500,
        description: `${total} units, revisions and ${total * CHECKS.length} scores on ${url}`,
      });
      expect(await counts(client, database)).toEqual(expected(total));
    }
    // Read through the returned replica with a store of its own: every check's scores, once each.
    const reader = store(r1.url, database);
    for (const check of CHECKS) {
      const scores = await reader.queryScores({ check, limit: 1000 });
      expect(new Set(scores.map((s) => s.unit_id)).size).toBe(total);
      expect(scores).toHaveLength(total);
    }
  });

  it('keeps the real scorer scoring (shared Kafka) through a replica stop: every unit scored once on both replicas', async () => {
    const [r1, r2] = cluster.replicas;
    const database = uniqueName('tc_cluster_scorer');
    const scorerStore = store(`${r1.url},${r2.url}`, database);
    await scorerStore.start();
    const bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('cluster'), log });
    const [unitsTopic, scoresTopic] = [uniqueName('units'), uniqueName('scores')];
    const registry = createCheckRegistry();
    const checks = [registry.get('function_result_present')!, registry.get('task_completed')!];
    const scorer = createScorer({ unitsTopic, scoresTopic, groupId: uniqueName('scorer'), judgeUnavailableReason: 'no judge configured' }, { bus, store: scorerStore, log, nowMs: Date.now, checks, judge: null });
    const producer = bus.createProducer();
    const published = new Set<string>();
    const reader = bus.createConsumer({
      topic: scoresTopic,
      groupId: uniqueName('reader'),
      handle: (m) => {
        const score = JSON.parse(m.value) as { unit_id: string; check: string };
        published.add(`${score.unit_id}/${score.check}`);
        return Promise.resolve();
      },
    });
    // In turn: the scorer creates its topics at start, and the reader's topic must exist first.
    await scorer.start();
    await producer.start();
    await reader.start();
    try {
      const UNITS = 40;
      const units = Array.from({ length: UNITS }, (_, i) => makeUnit({ unit_id: `scored-${i}` }));
      const send = (part: typeof units): Promise<void> => producer.send(unitsTopic, part.map((u) => ({ key: u.unit_id, value: JSON.stringify(u) })));
      await send(units.slice(0, UNITS / 2));
      // Replica 1 dies once the scorer is under way; the second half arrives while it is down.
      await waitFor(() => published.size >= 16, { timeoutMs: 60_000, intervalMs: 100, description: '16 scores published' });
      await r1.stop();
      await send(units.slice(UNITS / 2));
      // A score is published after its store write was acknowledged: all of them means all written.
      await waitFor(() => published.size === UNITS * checks.length, { timeoutMs: 90_000, intervalMs: 250, description: `${UNITS * checks.length} scores published` });
      await r1.start();
      for (const url of [r2.url, r1.url]) {
        const client = admin(url);
        const want = { units: UNITS, scores: UNITS * checks.length, scoreKeys: UNITS * checks.length, revisions: UNITS };
        await waitFor(async () => JSON.stringify(await counts(client, database)) === JSON.stringify(want), { timeoutMs: 90_000, intervalMs: 500, description: `${UNITS} scored units on ${url}` });
      }
    } finally {
      await Promise.all([reader.shutdown(), scorer.shutdown(), producer.shutdown()]);
    }
  });
});
