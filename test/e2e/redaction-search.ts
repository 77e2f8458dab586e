import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Kafka, logLevel } from 'kafkajs';

// Where the redaction e2e test looks for secrets: every place data goes after the collector.

/** Every file under `dir` (the embedded bus log, the DuckDB files), as text. */
export function filesText(dir: string): string {
  const parts: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) parts.push(filesText(path));
    else parts.push(readFileSync(path).toString('latin1'));
  }
  return parts.join('\n');
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

/** Every row of every table of the DuckDB database at `path` (opened after the pipeline stopped). */
export async function duckDbText(path: string): Promise<{ tables: string[]; text: string }> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  try {
    const tables = (await c.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY table_name`)).getRowObjectsJS().map((r) => r.table_name as string);
    const parts: string[] = [];
    for (const t of tables) parts.push(json((await c.runAndReadAll(`SELECT * FROM "${t}"`)).getRowObjectsJS()));
    return { tables, text: parts.join('\n') };
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

async function clickhouse(url: string, sql: string): Promise<string> {
  const res = await fetch(`${url}/?query=${encodeURIComponent(sql)}`, { method: 'POST', signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Every row of every table of a ClickHouse database (a plain identifier of the test's own). */
export async function clickHouseText(url: string, database: string): Promise<{ tables: string[]; text: string }> {
  const tables = (await clickhouse(url, `SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name FORMAT TabSeparated`)).split('\n').filter(Boolean);
  const parts: string[] = [];
  for (const t of tables) parts.push(await clickhouse(url, `SELECT * FROM ${database}.\`${t}\` FORMAT JSONEachRow`));
  return { tables, text: parts.join('\n') };
}

/** Every record of the topics, from the beginning. */
export async function kafkaText(brokers: string[], topics: readonly string[]): Promise<{ records: number; text: string }> {
  const kafka = new Kafka({ clientId: 'redaction-test', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const expected = new Map<string, number>();
  try {
    for (const topic of topics) expected.set(topic, (await admin.fetchTopicOffsets(topic)).reduce((s, p) => s + Number(p.high) - Number(p.low), 0));
  } finally {
    await admin.disconnect();
  }
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  const consumer = kafka.consumer({ groupId: `redaction-read-${Math.random().toString(36).slice(2)}` });
  const parts: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${parts.length} of ${total} records`)), 120_000);
      if (total === 0) {
        clearTimeout(timer);
        resolve();
      }
      void consumer.run({
        eachMessage: ({ message }) => {
          parts.push(`${message.key?.toString() ?? ''} ${message.value?.toString() ?? ''}`);
          if (parts.length >= total) {
            clearTimeout(timer);
            resolve();
          }
          return Promise.resolve();
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return { records: parts.length, text: parts.join('\n') };
}

/** A proxy in front of the model server that keeps every request body: what the judge was sent. */
export async function recordingProxy(target: string): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString());
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      fetch(`${target}${req.url ?? ''}`, { method: req.method ?? 'POST', headers, ...(body.length > 0 ? { body } : {}) })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
