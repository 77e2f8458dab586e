import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { waitFor } from './infra.ts';

// A Kafka broker and a ClickHouse server of a test's own, on free loopback ports with their data
// under .cache/private/, for the outage tests: the shared servers of scripts/infra.sh must never be
// stopped (other test files and other people use them). Same jars and binary, same configuration
// as scripts/infra.sh writes, so what survives an outage here survives it there.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Kafka's jars: `.cache/kafka/libs` of this checkout (scripts/infra.sh up fetches them), or TRACECHECK_TEST_KAFKA_LIBS. */
export function kafkaLibsDir(): string {
  return process.env.TRACECHECK_TEST_KAFKA_LIBS?.trim() || join(ROOT, '.cache', 'kafka', 'libs');
}

export interface PrivateServer {
  /** Stops the process (SIGKILL: an abrupt outage; the data dir stays for `start`). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}

export interface PrivateKafka extends PrivateServer {
  brokers: string[];
}

export interface PrivateClickHouse extends PrivateServer {
  url: string;
}

const children = new Set<ChildProcess>();
// A test that dies before its afterAll must not leave a broker behind on the shared machine.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export function privateDir(kind: string): string {
  const dir = join(ROOT, '.cache', 'private', `${kind}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function spawnLogged(command: string, args: string[], cwd: string, logFile: string, env?: Record<string, string>): ChildProcess {
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function killAndWait(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });
}

export function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '(no log)';
}

function runToEnd(command: string, args: string[], cwd: string, logFile: string, timeoutMs: number): Promise<void> {
  return new Promise((done, reject) => {
    const child = spawnLogged(command, args, cwd, logFile);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) done();
      else reject(new Error(`${command} ${args.slice(-4).join(' ')} exited with ${code}:\n${tail(logFile)}`));
    });
  });
}

async function kafkaAnswers(brokers: string[]): Promise<boolean> {
  const admin = new Kafka({ clientId: 'private-kafka-ping', brokers, connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 }, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** A single-node KRaft broker (broker + controller), formatted and started; about 10–20 s on a loaded 2-core box. */
export async function startPrivateKafka(
  options: {
    startTimeoutMs?: number;
    /** false: a topic that does not exist stays missing (default true, as scripts/infra.sh). */ autoCreateTopics?: boolean;
    /** More lines of server.properties (e.g. a small `message.max.bytes`). */
    serverProperties?: Record<string, string>;
  } = {},
): Promise<PrivateKafka> {
  const libs = kafkaLibsDir();
  if (!existsSync(libs)) throw new Error(`Kafka jars not found in ${libs}: run 'bash scripts/infra.sh up' (or set TRACECHECK_TEST_KAFKA_LIBS)`);
  const dir = privateDir('kafka');
  const [port, controllerPort] = [await freePort(), await freePort()];
  const props = join(dir, 'server.properties');
  const logFile = join(dir, 'server.log');
  // As scripts/infra.sh writes it, on our own ports and data dir.
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      `log.dirs=${join(dir, 'data')}`,
      'num.partitions=3',
      `auto.create.topics.enable=${options.autoCreateTopics ?? true}`,
      'default.replication.factor=1',
      'min.insync.replicas=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=3',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'transaction.state.log.num.partitions=3',
      'group.initial.rebalance.delay.ms=0',
      'num.network.threads=2',
      'num.io.threads=2',
      ...Object.entries(options.serverProperties ?? {}).map(([k, v]) => `${k}=${v}`),
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'log4j.properties'), ['log4j.rootLogger=WARN, stdout', 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender', 'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout', 'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n', ''].join('\n'));
  const java = (main: string, ...args: string[]): string[] => ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`, '-cp', `${libs}/*`, main, ...args];
  // `--cluster-id=` form: a base64url id may start with '-', which the tool would read as an option.
  await runToEnd('java', java('kafka.tools.StorageTool', 'format', '--ignore-formatted', `--cluster-id=${randomBytes(16).toString('base64url')}`, '-c', props), dir, logFile, 60_000);
  const brokers = [`127.0.0.1:${port}`];
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawnLogged('java', java('kafka.Kafka', props), dir, logFile);
    const running = child;
    await waitFor(
      async () => {
        if (running.exitCode !== null) throw new Error(`the broker exited with ${running.exitCode}:\n${tail(logFile)}`);
        return kafkaAnswers(brokers);
      },
      { timeoutMs: options.startTimeoutMs ?? 90_000, intervalMs: 300, description: `the private Kafka on ${brokers[0]}` },
    );
  };
  await start();
  return {
    brokers,
    start,
    stop: () => killAndWait(child),
    destroy: async () => {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A ClickHouse server with its own ports and data dir, configured as scripts/infra.sh configures the shared one. */
export async function startPrivateClickHouse(
  options: {
    startTimeoutMs?: number;
    /** Ports chosen by the caller (a cluster's replicas must know each other's before they start). */
    ports?: { http: number; tcp: number };
    /** More configuration (e.g. replication), written to config.d/ where the server merges it in. */
    extraConfig?: string;
    /** Environment for the server beside the test's (what `from_env` in its configuration reads). */
    env?: Record<string, string>;
  } = {},
): Promise<PrivateClickHouse> {
  const dir = privateDir('clickhouse');
  for (const sub of ['data', 'tmp', 'log', 'user_files', 'format_schemas', 'config.d']) mkdirSync(join(dir, sub), { recursive: true });
  const { http: httpPort, tcp: tcpPort } = options.ports ?? { http: await freePort(), tcp: await freePort() };
  const config = join(dir, 'config.xml');
  const template = readFileSync(join(ROOT, 'scripts', 'clickhouse', 'config.xml'), 'utf8');
  writeFileSync(config, template.replaceAll('@CH_DIR@', dir).replaceAll('@HTTP_PORT@', String(httpPort)).replaceAll('@TCP_PORT@', String(tcpPort)));
  if (options.extraConfig !== undefined) writeFileSync(join(dir, 'config.d', 'extra.xml'), options.extraConfig);
  writeFileSync(join(dir, 'users.xml'), readFileSync(join(ROOT, 'scripts', 'clickhouse', 'users.xml')));
  const url = `http://127.0.0.1:${httpPort}`;
  const logFile = join(dir, 'log', 'stdout.log');
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawnLogged('clickhouse-server', [`--config-file=${config}`], dir, logFile, options.env);
    const running = child;
    await waitFor(
      async () => {
        if (running.exitCode !== null) throw new Error(`clickhouse-server exited with ${running.exitCode}:\n${tail(join(dir, 'log', 'clickhouse-server.err.log'))}`);
        const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(2000) });
        return (await res.text()) === 'Ok.\n';
      },
      { timeoutMs: options.startTimeoutMs ?? 60_000, intervalMs: 200, description: `the private ClickHouse on ${url}` },
    );
  };
  await start();
  return {
    url,
    start,
    stop: () => killAndWait(child),
    destroy: async () => {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
