import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, type Store } from '../../../shared/adapters/store/index.ts';
import { uniqueName, waitFor } from '../../helpers/infra.ts';
import { startPrivateZooKeeper, type PrivateZooKeeper } from '../../helpers/private-cluster.ts';
import { freePort, startPrivateClickHouse, type PrivateClickHouse } from '../../helpers/private-servers.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// docker-compose's `cluster` profile (deploy/clickhouse-cluster/replica.xml, written for current
// servers) run through Debian's 18.16 config loader, as far as the two share a format: no Docker
// reaches our machines. What this changes in the file, and nothing else: the root element
// (<clickhouse> is <yandex> on 18.16), the compose service names and ports (keeper:9181,
// clickhouse-N:9000, 9009) mapped to this test's loopback ports, and ZooKeeper 3.8.4 in place of
// Keeper (the same client protocol). `from_env` is kept: each server gets CLICKHOUSE_REPLICA and
// CLICKHOUSE_PASSWORD in its environment, as compose sets them. keeper.xml is a Keeper server's
// configuration, which 18.16 has no use for: only its port is checked against the replicas'.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const REPLICA_XML = readFileSync(join(ROOT, 'deploy', 'clickhouse-cluster', 'replica.xml'), 'utf8');
const KEEPER_XML = readFileSync(join(ROOT, 'deploy', 'clickhouse-cluster', 'keeper.xml'), 'utf8');
const log = createSilentLogger();
// Replica names that resolve to this host's loopback, as the compose service names do inside compose.
const NAMES = ['127.0.0.1', 'localhost'] as const;

let zookeeper: PrivateZooKeeper;
const servers: PrivateClickHouse[] = [];
const clients: ClickHouseClient[] = [];
const stores: Store[] = [];

/** The compose file's replica.xml for 18.16 on this test's ports (see the top of this file). */
function forOldServer(xml: string, zkPort: number, tcp: readonly number[], interserver: number): string {
  const out = xml
    .replace('<clickhouse>', '<yandex>')
    .replace('</clickhouse>', '</yandex>')
    .replace('<host>keeper</host><port>9181</port>', `<host>127.0.0.1</host><port>${zkPort}</port>`)
    .replace('<host>clickhouse-1</host><port>9000</port>', `<host>127.0.0.1</host><port>${tcp[0]}</port>`)
    .replace('<host>clickhouse-2</host><port>9000</port>', `<host>127.0.0.1</host><port>${tcp[1]}</port>`)
    .replace('<interserver_http_port>9009</interserver_http_port>', `<interserver_http_port>${interserver}</interserver_http_port>`);
  // Every mapping above must have found its text: a changed compose file fails here, not later.
  expect(out.match(/127\.0\.0\.1/g)).toHaveLength(3);
  expect(out).toContain(`<interserver_http_port>${interserver}</interserver_http_port>`);
  return out;
}

beforeAll(async () => {
  zookeeper = await startPrivateZooKeeper();
  const ports = [];
  for (let i = 0; i < 2; i += 1) ports.push({ http: await freePort(), tcp: await freePort(), interserver: await freePort() });
  const tcp = ports.map((p) => p.tcp);
  servers.push(
    ...(await Promise.all(
      ports.map((p, i) =>
        startPrivateClickHouse({
          ports: { http: p.http, tcp: p.tcp },
          extraConfig: forOldServer(REPLICA_XML, zookeeper.port, tcp, p.interserver),
          env: { CLICKHOUSE_REPLICA: NAMES[i], CLICKHOUSE_PASSWORD: '' },
        }),
      ),
    )),
  );
}, 150_000);

afterAll(async () => {
  await Promise.all(stores.map((s) => s.shutdown()));
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.destroy()));
  await zookeeper?.destroy();
});

function admin(url: string): ClickHouseClient {
  const client = createClient({ url, request_timeout: 15_000, log: { level: ClickHouseLogLevel.OFF } });
  clients.push(client);
  return client;
}

async function rows<T>(url: string, query: string): Promise<T[]> {
  return (await admin(url).query({ query, format: 'JSONEachRow' })).json<T>();
}

describe("docker-compose's cluster profile configuration on 18.16's config loader (ZooKeeper 3.8.4 for Keeper)", () => {
  it('gives each server its macros, the cluster `tracecheck` of one shard with both replicas, and a working ZooKeeper session', async () => {
    for (const [i, server] of servers.entries()) {
      expect(await rows(server.url, 'SELECT macro, substitution FROM system.macros ORDER BY macro')).toEqual([
        { macro: 'replica', substitution: NAMES[i] },
        { macro: 'shard', substitution: '01' },
      ]);
      expect(await rows(server.url, "SELECT shard_num, replica_num FROM system.clusters WHERE cluster = 'tracecheck' ORDER BY replica_num")).toEqual([
        { shard_num: 1, replica_num: 1 },
        { shard_num: 1, replica_num: 2 },
      ]);
      expect(await rows(server.url, "SELECT count() > 0 AS ok FROM system.zookeeper WHERE path = '/'")).toEqual([{ ok: 1 }]);
    }
    // The Keeper the replicas are told of listens where keeper.xml says.
    expect(/<tcp_port>(\d+)<\/tcp_port>/.exec(KEEPER_XML)?.[1]).toBe('9181');
    expect(REPLICA_XML).toContain('<host>keeper</host><port>9181</port>');
  });

  it('runs the store replicated on it: tables made ON CLUSTER tracecheck, written through one replica, read through the other', async () => {
    const database = uniqueName('tc_compose_cluster');
    const [a, b] = servers as [PrivateClickHouse, PrivateClickHouse];
    const writer = createClickHouseStore({ url: a.url, database, cluster: 'tracecheck', log, requestTimeoutMs: 15_000 });
    const reader = createClickHouseStore({ url: b.url, database, cluster: 'tracecheck', log, requestTimeoutMs: 15_000 });
    stores.push(writer, reader);
    await writer.start();
    const units = Array.from({ length: 10 }, (_, i) => makeUnit({ unit_id: `compose-${i}` }));
    await writer.writeScoredUnits(units.map((unit) => ({ unit, scores: [makeScore({ unit_id: unit.unit_id, check: 'task_completed' })] })));
    await waitFor(async () => (await reader.queryScores({ check: 'task_completed', limit: 100 })).length === 10, { timeoutMs: 60_000, intervalMs: 250, description: '10 scores on the other replica' });
    expect(await rows(b.url, `SELECT engine FROM system.tables WHERE database = '${database}' AND name = 'scores'`)).toEqual([{ engine: 'ReplicatedReplacingMergeTree' }]);
  });
});
