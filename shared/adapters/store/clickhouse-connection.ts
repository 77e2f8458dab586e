import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { clientLoggerClass } from './clickhouse-client-logger.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { quoteIdentifier, sqlIdentifier, type SqlFragment } from './sql-quote.ts';

export interface ClickHouseConnectionOptions {
  url: string;
  /** A plain identifier ([A-Za-z_][A-Za-z0-9_]*). */
  database: string;
  user?: string | undefined;
  password?: string | undefined;
  /** Per HTTP request; a server that does not answer in time is a retriable error. Default 30 s. */
  requestTimeoutMs?: number | undefined;
  log: Logger;
}

// Only settings that 18.16 knows: an unknown setting fails the whole query there.
// 64-bit integers as JSON numbers: epoch ms and token counts stay far below 2^53.
const READ_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 0 };

/** The store's way to ClickHouse: its HTTP client made on first use, every failure classified. */
export type ClickHouseConnection = ReturnType<typeof createClickHouseConnection>;

/** Statements, selects (JSONEachRow) and inserts into one database, each error retriable or permanent. */
export function createClickHouseConnection(options: ClickHouseConnectionOptions) {
  const log = options.log;
  /** The database name, quoted for SQL text. */
  const database = quoteIdentifier(options.database);
  let client: ClickHouseClient | null = null;
  let closed = false;
  /** What the server's features add to every statement (see `useSettings`). */
  let serverSettings: ClickHouseSettings = {};

  function getClient(): ClickHouseClient {
    if (closed) throw new PermanentError('clickhouse store is shut down');
    client ??= createClient({
      url: options.url,
      username: options.user ?? 'default',
      password: options.password ?? '',
      request_timeout: options.requestTimeoutMs ?? 30_000,
      application: 'tracecheck',
      log: { LoggerClass: clientLoggerClass(log.child({ component: 'clickhouse-client' })) },
    });
    return client;
  }

  async function run<T>(action: string, fn: (c: ClickHouseClient) => Promise<T>): Promise<T> {
    try {
      return await fn(getClient());
    } catch (err) {
      throw classifyClickHouseError(err, action);
    }
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
    await run(action, (c) => c.insert({ table: `${database}.${table}`, values, columns, format: 'JSONEachRow' }));
  }

  return {
    database,
    /** The database as a SQL fragment. */
    db: sqlIdentifier(database),
    command,
    select,
    insert,
    /** Settings for every later select and command: only ones this server knows (an unknown one fails the query). */
    useSettings(settings: ClickHouseSettings): void {
      serverSettings = { ...settings };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const c = client;
      client = null;
      await c?.close();
    },
  };
}
