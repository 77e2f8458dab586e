import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { clientLoggerClass } from './clickhouse-client-logger.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { quoteIdentifier, sqlIdentifier, type SqlFragment } from './sql-quote.ts';

export interface ClickHouseConnectionOptions {
  /** One HTTP URL, or several separated by commas: replicas of one cluster, tried in turn (failover). */
  url: string;
  /** A plain identifier ([A-Za-z_][A-Za-z0-9_]*). */
  database: string;
  user?: string | undefined;
  password?: string | undefined;
  /** Per HTTP request; a server that does not answer in time is a retriable error. Default 30 s. */
  requestTimeoutMs?: number | undefined;
  /** Replicas that must have an insert before it is acknowledged (`insert_quorum`); unset or 0: one. */
  insertQuorum?: number | undefined;
  log: Logger;
}

// Only settings that 18.16 knows: an unknown setting fails the whole query there.
// 64-bit integers as JSON numbers: epoch ms and token counts stay far below 2^53.
const READ_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 0 };

/** The store's way to ClickHouse: its HTTP client made on first use, every failure classified. */
export type ClickHouseConnection = ReturnType<typeof createClickHouseConnection>;

/** The URLs of `TRACECHECK_CLICKHOUSE_URL`: one, or replicas separated by commas. */
export function splitClickHouseUrls(text: string): string[] {
  const urls = text.split(',').map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) throw new PermanentError('no ClickHouse URL given');
  return urls;
}

/** Statements, selects (JSONEachRow) and inserts into one database, each error retriable or permanent. */
export function createClickHouseConnection(options: ClickHouseConnectionOptions) {
  const log = options.log;
  /** The database name, quoted for SQL text. */
  const database = quoteIdentifier(options.database);
  const urls = splitClickHouseUrls(options.url);
  // 18.16 knows insert_quorum; sent only when asked for, as an unknown setting fails a query.
  const quorumSettings: ClickHouseSettings = options.insertQuorum ? { insert_quorum: String(options.insertQuorum), insert_quorum_timeout: options.requestTimeoutMs ?? 30_000 } : {};
  let insertSettings: ClickHouseSettings | null = options.insertQuorum ? quorumSettings : null;
  const clients: (ClickHouseClient | null)[] = urls.map(() => null);
  /** The replica in use: kept until it fails, so reads follow this process's own writes. */
  let current = 0;
  let closed = false;
  /** What the server's features add to every statement (see `useSettings`). */
  let serverSettings: ClickHouseSettings = {};

  function getClient(i: number): ClickHouseClient {
    if (closed) throw new PermanentError('clickhouse store is shut down');
    const made =
      clients[i] ??
      createClient({
        url: urls[i],
        username: options.user ?? 'default',
        password: options.password ?? '',
        request_timeout: options.requestTimeoutMs ?? 30_000,
        application: 'tracecheck',
        log: { LoggerClass: clientLoggerClass(log.child({ component: 'clickhouse-client' })) },
      });
    clients[i] = made;
    return made;
  }

  /**
   * Runs `fn` on the replica in use; on a retriable failure (refused, reset, timed out, a replica
   * without its ZooKeeper session) on the next one, each at most once per call. Repeating an insert
   * there is safe: its rows carry their keys and versions, so reads and merges keep one of each.
   */
  async function run<T>(action: string, fn: (c: ClickHouseClient) => Promise<T>): Promise<T> {
    let failure: RetriableError | PermanentError | null = null;
    for (let tried = 0; tried < urls.length; tried += 1) {
      const i = (current + tried) % urls.length;
      try {
        const result = await fn(getClient(i));
        if (i !== current) {
          log.warn({ from: urls[current], to: urls[i], action }, 'clickhouse: switched to another replica');
          current = i;
        }
        return result;
      } catch (err) {
        failure = classifyClickHouseError(err, action);
        if (!(failure instanceof RetriableError) || closed) throw failure;
        if (urls.length > 1) log.warn({ url: urls[i], action, err: failure.message }, 'clickhouse: a replica failed; trying the next');
      }
    }
    throw failure ?? new RetriableError(`clickhouse ${action} failed`);
  }

  async function command(action: string, query: string): Promise<void> {
    await run(action, (c) => c.command({ query, clickhouse_settings: serverSettings }));
  }

  async function select(action: string, query: SqlFragment): Promise<Record<string, unknown>[]> {
    return run(action, async (c) => {
      const rs = await c.query({ query: query.sqlText, format: 'JSONEachRow', clickhouse_settings: { ...READ_SETTINGS, ...serverSettings } });
      return rs.json<Record<string, unknown>>();
    });
  }

  async function insert(action: string, table: string, columns: [string, ...string[]], values: Record<string, unknown>[]): Promise<void> {
    await run(action, (c) => c.insert({ table: `${database}.${table}`, values, columns, format: 'JSONEachRow', ...(insertSettings ? { clickhouse_settings: insertSettings } : {}) }));
  }

  return {
    database,
    /** The database as a SQL fragment. */
    db: sqlIdentifier(database),
    command,
    select,
    insert,
    /** Settings for every later insert, beside the quorum's (a sharded store's: clickhouse-shards.ts). */
    useInsertSettings(settings: ClickHouseSettings): void {
      insertSettings = { ...quorumSettings, ...settings };
    },
    /** Settings for every later select and command: only ones this server knows (an unknown one fails the query). */
    useSettings(settings: ClickHouseSettings): void {
      serverSettings = { ...settings };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const open = clients.filter((c): c is ClickHouseClient => c !== null);
      clients.fill(null);
      await Promise.all(open.map((c) => c.close()));
    },
  };
}
