import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { PermanentError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Score, Unit } from '../schemas/index.ts';
import type { ScoreQuery, Store } from './contract.ts';
import { clientLoggerClass } from './clickhouse-client-logger.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import {
  createDatabaseSql,
  parseClickHouseVersion,
  scoresTableSql,
  unitsTableSql,
  type ClickHouseFeatures,
} from './clickhouse-schema.ts';
import {
  SCORE_FIELDS,
  UNIT_COLUMNS,
  createWriteSequence,
  jsonToUnit,
  normalizeScoreQuery,
  rowsToScores,
  scoreToRow,
  unitToRow,
} from './rows.ts';
import { joinSql, quoteIdentifier, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';

export interface ClickHouseStoreOptions {
  url: string;
  /** A plain identifier ([A-Za-z_][A-Za-z0-9_]*); created by `migrate()` if missing. */
  database: string;
  user?: string | undefined;
  password?: string | undefined;
  log: Logger;
  /** Per HTTP request; a server that does not answer in time is a retriable error. Default 30 s. */
  requestTimeoutMs?: number | undefined;
  /** Drop rows older than this many days. Only on servers with TTL (not 18.16); default: keep all. */
  ttlDays?: number | undefined;
}

// Only settings that 18.16 knows: an unknown setting fails the whole query there.
// 64-bit integers as JSON numbers: epoch ms and token counts stay far below 2^53.
const READ_SETTINGS: ClickHouseSettings = { output_format_json_quote_64bit_integers: 0 };

// `check` is a keyword (CHECK TABLE); quoting it everywhere keeps the SQL unambiguous.
const col = (name: string): string => (name === 'check' ? '`check`' : name);
const SCORE_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', ...SCORE_FIELDS.map(col)];
const UNIT_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', ...UNIT_COLUMNS.map(col)];
const SCORE_SELECT: SqlFragment = joinSql(SCORE_FIELDS.map((f) => (f === 'check' ? sql`\`check\`` : sqlIdentifier(f))), ', ');

/**
 * The production store on ClickHouse, from Debian's 18.16 to current releases. Values reach SQL
 * only through `sql`/quoting (18.16 has no query parameters); rows are inserted as JSONEachRow.
 */
export function createClickHouseStore(options: ClickHouseStoreOptions): Store {
  const log = options.log;
  const database = quoteIdentifier(options.database);
  if (options.ttlDays !== undefined && (!Number.isSafeInteger(options.ttlDays) || options.ttlDays < 1)) {
    throw new PermanentError(`ttlDays must be a positive integer, got ${String(options.ttlDays)}`);
  }
  const db = sqlIdentifier(database);
  const nextWriteSeq = createWriteSequence();
  let client: ClickHouseClient | null = null;
  let features: ClickHouseFeatures | null = null;
  let migrated: Promise<void> | null = null;
  let closed = false;

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
    await run(action, (c) => c.command({ query }));
  }

  async function select(action: string, query: SqlFragment): Promise<Record<string, unknown>[]> {
    return run(action, async (c) => {
      const rs = await c.query({ query: query.sqlText, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS });
      return rs.json<Record<string, unknown>>();
    });
  }

  async function detectFeatures(): Promise<ClickHouseFeatures> {
    if (features) return features;
    const rows = await select('version', sql`SELECT version() AS v`);
    const v = rows[0]?.v;
    if (typeof v !== 'string') throw new PermanentError('clickhouse did not report a version');
    features = parseClickHouseVersion(v);
    return features;
  }

  async function doMigrate(): Promise<void> {
    const f = await detectFeatures();
    if (options.ttlDays !== undefined && !f.modern) {
      log.warn({ version: f.version, ttlDays: options.ttlDays }, 'this ClickHouse has no table TTL; keeping all rows');
    }
    const schema = { database, ttlDays: options.ttlDays };
    await command('create database', createDatabaseSql(schema));
    await command('create units table', unitsTableSql(f, schema));
    await command('create scores table', scoresTableSql(f, schema));
    log.info({ version: f.version, modern: f.modern, database }, 'clickhouse schema ready');
  }

  function migrate(): Promise<void> {
    // One migration at a time; a failed one may be tried again.
    migrated ??= doMigrate().catch((err: unknown) => {
      migrated = null;
      throw err;
    });
    return migrated;
  }

  async function insert(action: string, table: string, columns: [string, ...string[]], values: Record<string, unknown>[]): Promise<void> {
    await run(action, (c) => c.insert({ table: `${database}.${table}`, values, columns, format: 'JSONEachRow' }));
  }

  const store: Store = {
    kind: 'clickhouse',
    name: 'store.clickhouse',
    async start() {
      await migrate();
    },
    async shutdown() {
      if (closed) return;
      closed = true;
      const c = client;
      client = null;
      await c?.close();
    },
    migrate,

    async writeUnits(units: readonly Unit[]) {
      if (units.length === 0) return;
      const rows = units.map((u) => {
        const r = unitToRow(u);
        return { ...r, truncated: r.truncated ? 1 : 0, write_seq: nextWriteSeq() };
      });
      await migrate();
      await insert('writeUnits', 'units', UNIT_INSERT_COLUMNS, rows);
    },

    async writeScores(scores: readonly Score[]) {
      if (scores.length === 0) return;
      // Sequence numbers in batch order: a later element for the same key wins on read and merge.
      const rows = scores.map((s) => {
        const r = scoreToRow(s);
        return { ...r, passed: r.passed === null ? null : r.passed ? 1 : 0, write_seq: nextWriteSeq() };
      });
      await migrate();
      await insert('writeScores', 'scores', SCORE_INSERT_COLUMNS, rows);
    },

    async getUnit(unitId: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      await migrate();
      // Newest assembly wins; write_seq breaks a tie. Works before and after background merges.
      const rows = await select(
        'getUnit',
        sql`SELECT unit_json FROM ${db}.units WHERE unit_id = ${unitId} ORDER BY assembled_at_ms DESC, write_seq DESC LIMIT 1`,
      );
      const first = rows[0];
      return first ? jsonToUnit(first.unit_json, log) : null;
    },

    async queryScores(query: ScoreQuery) {
      const nq = normalizeScoreQuery(query);
      if (nq.empty) return [];
      const from = nq.fromMs;
      const to = nq.toMs;

      // Key filters may go before the one-row-per-key step (they select whole keys); time filters
      // must go after it, or a superseded version could stand in for a winner outside the range.
      const keyFilters: SqlFragment[] = [];
      if (nq.check !== undefined) keyFilters.push(sql`\`check\` = ${nq.check}`);
      if (nq.unitId !== undefined) keyFilters.push(sql`unit_id = ${nq.unitId}`);
      const timeFilters: SqlFragment[] = [];
      if (from !== undefined) timeFilters.push(sql`created_at_ms >= ${from}`);
      if (to !== undefined) timeFilters.push(sql`created_at_ms < ${to}`);
      const where = (filters: SqlFragment[]): SqlFragment => (filters.length > 0 ? sql` WHERE ${joinSql(filters, ' AND ')}` : sql``);

      await migrate();
      const rows = await select(
        'queryScores',
        sql`SELECT ${SCORE_SELECT} FROM (SELECT ${SCORE_SELECT} FROM ${db}.scores${where(keyFilters)} ORDER BY write_seq DESC LIMIT 1 BY \`check\`, unit_id, check_version)${where(timeFilters)} ORDER BY created_at_ms DESC, unit_id, \`check\`, check_version LIMIT ${nq.limit}`,
      );
      return rowsToScores(rows, log);
    },
  };
  return store;
}
