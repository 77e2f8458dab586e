import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { RetriableError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { clickHouseErrorCode } from './clickhouse-errors.ts';
import { sql, sqlIdentifier } from './sql-quote.ts';

/** The table whose existence is the lease: CREATE TABLE (without IF NOT EXISTS) succeeds for one process only. */
export const LEASE_TABLE = 'schema_migration_lease';
const TABLE_ALREADY_EXISTS = 57;
const UNKNOWN_TABLE = 60;

export interface SchemaLeaseOptions {
  connection: ClickHouseConnection;
  log: Logger;
  /** How long a lease lasts unless renewed (its holder renews it every third of it). Default 30 s. */
  ttlSeconds?: number;
  /** How long to wait for another process's migration before giving up (retriable). Default 120 s. */
  acquireTimeoutMs?: number;
  /** Between looks at a lease held by another process. Default 200 ms (plus jitter). */
  pollMs?: number;
}

/** The server's exception code of a classified store error (kept as its cause) or a raw one. */
const serverCode = (err: unknown): number | null => clickHouseErrorCode(err instanceof Error && err.cause !== undefined ? err.cause : err);

/**
 * Runs `fn` (the schema's creation and migrations) as the only process doing so on this database.
 * ClickHouse 18.16 has no transactions or locks, but creating a table that exists fails: the lease
 * is a table created with its holder and expiry in it, renewed while `fn` runs and dropped after.
 * Others wait until it is gone and then take it in turn (each finds the schema done and has little
 * to do). A lease whose holder died (not renewed within its ttl, by the server's clock) is broken
 * and taken over; its steps are idempotent, so a migration cut half-way is completed by the next.
 */
export async function withSchemaLease<T>(options: SchemaLeaseOptions, fn: () => Promise<T>): Promise<T> {
  const { connection, log } = options;
  const ttl = options.ttlSeconds ?? 30;
  const pollMs = options.pollMs ?? 200;
  const deadline = Date.now() + (options.acquireTimeoutMs ?? 120_000);
  const table = sql`${connection.db}.${sqlIdentifier(LEASE_TABLE)}`;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  /** The lease as stored: null once dropped; `rows` 0 right after its creation, before its row is in. */
  const readLease = async (): Promise<{ rows: number; owner: string; expired: boolean } | null> => {
    try {
      const rows = await connection.select('read the schema lease', sql`SELECT count() AS n, argMax(owner, expires_at) AS owner, max(expires_at) < now() AS expired FROM ${table}`);
      const r = rows[0] ?? {};
      return { rows: Number(r.n ?? 0), owner: typeof r.owner === 'string' ? r.owner : '', expired: Number(r.expired ?? 0) === 1 };
    } catch (err) {
      if (serverCode(err) === UNKNOWN_TABLE) return null;
      throw err;
    }
  };
  const drop = (): Promise<void> => connection.command('drop the schema lease', sql`DROP TABLE IF EXISTS ${table}`.sqlText);

  let seenEmptySince: number | null = null;
  for (;;) {
    try {
      await connection.command('take the schema lease', sql`CREATE TABLE ${table} ENGINE = Log AS SELECT ${owner} AS owner, now() + ${ttl} AS expires_at`.sqlText);
      break;
    } catch (err) {
      if (serverCode(err) !== TABLE_ALREADY_EXISTS) throw err;
    }
    const held = await readLease();
    if (held === null) continue; // released in between: try again at once
    seenEmptySince = held.rows === 0 ? (seenEmptySince ?? Date.now()) : null;
    // Created but never filled (its creator died in between), or not renewed in time: broken.
    if (held.expired || (seenEmptySince !== null && Date.now() - seenEmptySince > ttl * 1000)) {
      log.warn({ holder: held.owner || null }, 'the schema lease was not renewed (its holder stopped while migrating): taking it over');
      await drop();
      seenEmptySince = null;
      continue;
    }
    if (Date.now() > deadline) throw new RetriableError(`the schema is being migrated by ${held.owner || 'another process'} for longer than this process waits; try again`);
    await sleep(pollMs + Math.floor(Math.random() * pollMs));
  }

  log.debug({ owner }, 'holding the schema lease');
  const renew = setInterval(() => {
    connection
      .command('renew the schema lease', sql`INSERT INTO ${table} SELECT ${owner} AS owner, now() + ${ttl} AS expires_at`.sqlText)
      .catch((err: unknown) => log.warn({ err }, 'could not renew the schema lease'));
  }, (ttl * 1000) / 3);
  renew.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    // Only our own lease is dropped: had ours been broken (a stall past its ttl), the next holder's stays.
    const held = await readLease().catch(() => null);
    if (held?.owner === owner) await drop();
  }
}
