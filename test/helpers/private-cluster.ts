import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './infra.ts';
import { freePort, kafkaLibsDir, killAndWait, privateDir, spawnLogged, startPrivateClickHouse, tail, type PrivateClickHouse, type PrivateServer } from './private-servers.ts';

// A replicated ClickHouse of a test's own: one ZooKeeper and ClickHouse servers (Debian's 18.16, as
// scripts/infra.sh runs the shared one) as two replicas of one shard of the cluster CLUSTER_NAME
// (or as shards of it), on free loopback ports with their data under .cache/private/. ZooKeeper runs from
// the jars scripts/infra.sh already fetched for Kafka (kafka_2.13 depends on zookeeper 3.8.4).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLUSTER_NAME = 'tracecheck_test';

export interface PrivateZooKeeper extends PrivateServer {
  port: number;
}

export interface PrivateCluster {
  zookeeper: PrivateZooKeeper;
  /** The first two servers (of one shard by default); `stop()`/`start()` one for an outage of that replica. */
  replicas: [PrivateClickHouse, PrivateClickHouse];
  /** Every server, shard by shard (with two shards of one replica: shard 1's, then shard 2's). */
  servers: PrivateClickHouse[];
  /** Stops everything and removes the data. */
  destroy(): Promise<void>;
}

/** Whether ZooKeeper answers a session handshake (the four-letter words are off by default in 3.8). */
function zookeeperAnswers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    const finish = (ok: boolean): void => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(2000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => {
      // ConnectRequest: length 44, protocol 0, last zxid 0, timeout 10 s, session 0, 16-byte empty password.
      const req = Buffer.alloc(48);
      req.writeInt32BE(44, 0);
      req.writeInt32BE(10_000, 16);
      req.writeInt32BE(16, 28);
      socket.write(req);
    });
    // A running server answers with its ConnectResponse; one still starting closes the socket.
    socket.once('data', (data) => finish(data.length >= 4));
    socket.once('close', () => finish(false));
  });
}

export async function startPrivateZooKeeper(options: { startTimeoutMs?: number } = {}): Promise<PrivateZooKeeper> {
  const libs = kafkaLibsDir();
  if (!existsSync(join(libs, 'zookeeper-3.8.4.jar'))) throw new Error(`zookeeper-3.8.4.jar not found in ${libs}: run 'bash scripts/infra.sh up' (or set TRACECHECK_TEST_KAFKA_LIBS)`);
  const dir = privateDir('zookeeper');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const port = await freePort();
  const cfg = join(dir, 'zoo.cfg');
  // A short tick: sessions of a killed replica expire within seconds (max session 20 ticks).
  writeFileSync(cfg, [`tickTime=500`, `dataDir=${join(dir, 'data')}`, `clientPort=${port}`, 'clientPortAddress=127.0.0.1', 'admin.enableServer=false', ''].join('\n'));
  writeFileSync(join(dir, 'log4j.properties'), ['log4j.rootLogger=WARN, stdout', 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender', 'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout', 'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n', ''].join('\n'));
  const logFile = join(dir, 'zookeeper.log');
  const args = ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`, '-cp', `${libs}/*`, 'org.apache.zookeeper.server.ZooKeeperServerMain', cfg];
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawnLogged('java', args, dir, logFile);
    const running = child;
    await waitFor(
      async () => {
        if (running.exitCode !== null) throw new Error(`ZooKeeper exited with ${running.exitCode}:\n${tail(logFile)}`);
        return zookeeperAnswers(port);
      },
      { timeoutMs: options.startTimeoutMs ?? 60_000, intervalMs: 300, description: `the private ZooKeeper on 127.0.0.1:${port}` },
    );
  };
  await start();
  return {
    port,
    start,
    stop: () => killAndWait(child),
    destroy: async () => {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How the servers are grouped: one shard of two replicas (the default), or several shards of one replica each. */
export interface ClusterLayout {
  shards: number;
  replicasPerShard: number;
}

/** The `<shard>` blocks of remote_servers for these servers' native ports, `replicasPerShard` in each. */
function shardsXml(tcpPorts: readonly number[], replicasPerShard: number): string {
  const blocks: string[] = [];
  for (let i = 0; i < tcpPorts.length; i += replicasPerShard) {
    const replicas = tcpPorts.slice(i, i + replicasPerShard).map((port) => `                <replica><host>127.0.0.1</host><port>${port}</port></replica>`);
    blocks.push(['            <shard>', '                <internal_replication>true</internal_replication>', ...replicas, '            </shard>'].join('\n'));
  }
  return blocks.join('\n');
}

/**
 * ZooKeeper plus ClickHouse servers: by default two replicas of one shard; `{ shards: 2,
 * replicasPerShard: 1 }` two shards of one server each. About 15–30 s on a loaded 2-core box.
 */
export async function startPrivateCluster(layout: ClusterLayout = { shards: 1, replicasPerShard: 2 }): Promise<PrivateCluster> {
  const zookeeper = await startPrivateZooKeeper();
  const started: PrivateClickHouse[] = [];
  try {
    const count = layout.shards * layout.replicasPerShard;
    if (count < 2) throw new Error('a private cluster has at least two servers');
    const ports: { http: number; tcp: number; interserver: number }[] = [];
    for (let i = 0; i < count; i += 1) ports.push({ http: await freePort(), tcp: await freePort(), interserver: await freePort() });
    const template = readFileSync(join(ROOT, 'scripts', 'clickhouse', 'replica.xml'), 'utf8');
    const shards = shardsXml(ports.map((p) => p.tcp), layout.replicasPerShard);
    const servers = await Promise.all(
      ports.map((p, i) =>
        startPrivateClickHouse({
          ports: { http: p.http, tcp: p.tcp },
          extraConfig: template
            .replaceAll('@INTERSERVER_PORT@', String(p.interserver))
            .replaceAll('@ZOOKEEPER_PORT@', String(zookeeper.port))
            .replaceAll('@SHARD@', String(Math.floor(i / layout.replicasPerShard) + 1).padStart(2, '0'))
            .replaceAll('@REPLICA@', `replica_${(i % layout.replicasPerShard) + 1}`)
            .replaceAll('@CLUSTER@', CLUSTER_NAME)
            .replaceAll('@SHARDS@', shards),
        }).then((r) => {
          started.push(r);
          return r;
        }),
      ),
    );
    return {
      zookeeper,
      replicas: [servers[0], servers[1]],
      servers,
      destroy: async () => {
        await Promise.all(servers.map((r) => r.destroy()));
        await zookeeper.destroy();
      },
    };
  } catch (err) {
    await Promise.all(started.map((r) => r.destroy()));
    await zookeeper.destroy();
    throw err;
  }
}
