import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { PermanentError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Score, Unit } from '../schemas/index.ts';
import type { AggregateQuery, DocQuery, ScoreQuery, Store, StoredDoc, UnitQuery } from './contract.ts';
import { normalizeAggregateQuery, normalizeUnitQuery, type Condition } from './conditions.ts';
import { UNIT_SUMMARY_COLUMNS, docLimit, docToRow, finiteNumber, rowToAggregate, rowToDoc, rowToUnitSummary, rowToValueCount, text } from './monitoring-rows.ts';
import { clientLoggerClass } from './clickhouse-client-logger.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import {
  createDatabaseSql,
  parseClickHouseVersion,
  addProjectColumnSql,
  docsTableSql,
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
const UNIT_SUMMARY_SELECT: SqlFragment = joinSql(UNIT_SUMMARY_COLUMNS.map((f) => sqlIdentifier(f)), ', ');
const DOC_COLUMNS: [string, ...string[]] = ['kind', 'project', 'id', 'body', 'updated_at_ms', 'deleted', 'write_seq'];

// `check` is a keyword, so it is back-quoted; every other column is a plain identifier.
const ident = (name: string): SqlFragment => (name === 'check' ? sql`\`check\`` : sqlIdentifier(name));

/** Renders a condition tree with every value quoted (18.16 has no query parameters). */
function render(cond: Condition): SqlFragment {
  switch (cond.kind) {
    case 'cmp': {
      // Booleans are stored as UInt8 (passed), so they compare as 0/1.
      const value = typeof cond.value === 'boolean' ? (cond.value ? 1 : 0) : cond.value;
      return sql`${ident(cond.column)} ${sqlOperator(cond.op)} ${value}`;
    }
    case 'in':
      return sql`${ident(cond.column)} IN (${joinSql(cond.values.map((v) => sql`${v}`), ', ')})`;
    case 'null':
      return sql`isNull(${ident(cond.column)})`;
    case 'and':
    case 'or':
      return sql`(${joinSql(cond.parts.map(render), cond.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

const OPERATORS = { '=': sql`=`, '>': sql`>`, '>=': sql`>=`, '<': sql`<` } as const;
const sqlOperator = (op: keyof typeof OPERATORS): SqlFragment => OPERATORS[op];

// Columns every version of a score key shares: they describe the unit (or are the key), so a filter
// on them keeps or drops all versions of a key together and may run before FINAL's merge, as
// PREWHERE: only the matching rows are then read and merged. Everything a re-score can change
// (status, passed, value, created_at_ms) stays in WHERE, after the merge.
const UNIT_COLUMNS_OF_SCORES = new Set(['check', 'check_version', 'unit_id', 'project', 'agent_name', 'agent_version', 'environment', 'service', 'unit_kind', 'unit_end_time_ms']);

function columnsOf(cond: Condition): string[] {
  return 'parts' in cond ? cond.parts.flatMap(columnsOf) : [cond.column];
}

/** ` PREWHERE <unit filters> WHERE <the rest>` for a read of scores with FINAL. */
function scoreFilters(conditions: readonly Condition[]): SqlFragment {
  const early = conditions.filter((c) => columnsOf(c).every((col) => UNIT_COLUMNS_OF_SCORES.has(col)));
  const late = conditions.filter((c) => !early.includes(c));
  const pre = early.length > 0 ? sql` PREWHERE ${joinSql(early.map(render), ' AND ')}` : sql``;
  return sql`${pre}${where(late)}`;
}

function where(conditions: readonly Condition[]): SqlFragment {
  return conditions.length > 0 ? sql` WHERE ${joinSql(conditions.map(render), ' AND ')}` : sql``;
}

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
    await command('create docs table', docsTableSql(schema));
    for (const table of ['scores', 'units'] as const) {
      const cols = await select('columns', sql`SELECT name FROM system.columns WHERE database = ${options.database} AND table = ${table} AND name = 'project'`);
      if (cols.length === 0) await command(`add project to ${table}`, addProjectColumnSql(schema, table));
    }
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

  // Documents: the latest row per key decides (argMax by write_seq), deleted ones are dropped after.
  async function readDocs(action: string, keyConditions: Condition[], beforeMs: number | null, limit: number): Promise<StoredDoc[]> {
    await migrate();
    const before = beforeMs === null ? sql`` : sql` AND u < ${beforeMs}`;
    const rows = await select(
      action,
      sql`SELECT kind, project, id, b AS body, u AS updated_at_ms FROM (SELECT kind, project, id, argMax(body, write_seq) AS b, argMax(updated_at_ms, write_seq) AS u, argMax(deleted, write_seq) AS d FROM ${db}.docs${where(keyConditions)} GROUP BY kind, project, id) WHERE d = 0${before} ORDER BY u DESC, id LIMIT ${limit}`,
    );
    return rows.map(rowToDoc);
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

    async getUnit(unitId: string, project?: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      await migrate();
      const inProject = project === undefined ? sql`` : sql` AND project = ${text(project)}`;
      // Newest assembly wins; write_seq breaks a tie. Works before and after background merges.
      const rows = await select(
        'getUnit',
        sql`SELECT unit_json FROM ${db}.units WHERE unit_id = ${unitId}${inProject} ORDER BY assembled_at_ms DESC, write_seq DESC LIMIT 1`,
      );
      const first = rows[0];
      return first ? jsonToUnit(first.unit_json, log) : null;
    },

    async queryScores(query: ScoreQuery) {
      const nq = normalizeScoreQuery(query);
      if (nq.empty) return [];
      await migrate();
      // FINAL merges each key to its latest row before WHERE applies (PREWHERE, before it, holds only
      // filters every version of a key shares: see scoreFilters), so a
      // superseded version never stands in for a winner that the filters exclude.
      const rows = await select(
        'queryScores',
        sql`SELECT ${SCORE_SELECT} FROM ${db}.scores FINAL${scoreFilters(nq.conditions)} ORDER BY created_at_ms DESC, unit_id, \`check\`, check_version LIMIT ${nq.limit}`,
      );
      return rowsToScores(rows, log);
    },

    async aggregateScores(query: AggregateQuery) {
      const nq = normalizeAggregateQuery(query);
      if (nq.empty) return [];
      await migrate();
      const bucket = nq.bucketMs === undefined ? sql`toNullable(toUInt64(0))` : sql`intDiv(toUInt64(unit_end_time_ms), ${nq.bucketMs}) * ${nq.bucketMs}`;
      const split = query.splitByAgent === true;
      const rows = await select(
        'aggregateScores',
        sql`SELECT \`check\` AS check_name, ${bucket} AS t,${split ? sql` agent_name AS split_agent, agent_version AS split_version,` : sql``}
  count() AS agg_total,
  countIf(status = 'ok') AS agg_n,
  countIf(status = 'ok' AND ifNull(passed, 0) = 1) AS agg_passed,
  countIf(status = 'ok' AND isNotNull(passed)) AS agg_judged,
  countIf(status = 'ok' AND isNotNull(value)) AS agg_valued,
  sumIf(ifNull(value, 0), status = 'ok') AS agg_value_sum,
  sumIf(ifNull(value, 0) * ifNull(value, 0), status = 'ok') AS agg_value_sq_sum,
  countIf(status = 'error') AS agg_error_count,
  countIf(status = 'not_run') AS agg_not_run_count,
  avg(toFloat64(created_at_ms) - unit_end_time_ms) AS agg_mean_lag_ms
FROM ${db}.scores FINAL${scoreFilters(nq.conditions)} GROUP BY check_name, t${split ? sql`, split_agent, split_version` : sql``} ORDER BY check_name, t${split ? sql`, split_agent, split_version` : sql``}`,
      );
      // Aliases carry a prefix: ClickHouse aliases are query-wide, and `passed` would shadow the column.
      const unprefixed = (r: Record<string, unknown>): Record<string, unknown> =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k.startsWith('agg_') ? k.slice(4) : k, v]));
      return rows.map((r) => rowToAggregate({ ...unprefixed(r), check: r.check_name, t: nq.bucketMs === undefined ? null : r.t }));
    },

    async valueCounts(query: AggregateQuery) {
      const nq = normalizeAggregateQuery({ ...query, status: 'ok' });
      if (nq.empty) return [];
      await migrate();
      const rows = await select(
        'valueCounts',
        sql`SELECT \`check\` AS check_name, assumeNotNull(value) AS v, count() AS c FROM ${db}.scores FINAL${scoreFilters(nq.conditions)} AND isNotNull(value) GROUP BY check_name, v ORDER BY check_name, v`,
      );
      return rows.map((r) => rowToValueCount(r.check_name, r.v, r.c));
    },

    async listUnits(query: UnitQuery) {
      const nq = normalizeUnitQuery(query);
      if (nq.empty) return [];
      await migrate();
      const rows = await select(
        'listUnits',
        sql`SELECT ${UNIT_SUMMARY_SELECT} FROM ${db}.units FINAL${where(nq.conditions)} ORDER BY end_time_ms DESC, unit_id LIMIT ${nq.limit}`,
      );
      return rows.map(rowToUnitSummary);
    },

    async putDoc(doc: StoredDoc) {
      const row = docToRow(doc);
      await migrate();
      await insert('putDoc', 'docs', DOC_COLUMNS, [{ ...row, deleted: 0, write_seq: nextWriteSeq() }]);
    },

    async getDoc(kind: string, project: string, id: string) {
      const docs = await readDocs('getDoc', [
        { kind: 'cmp', column: 'kind', op: '=', value: text(kind) },
        { kind: 'cmp', column: 'project', op: '=', value: text(project) },
        { kind: 'cmp', column: 'id', op: '=', value: text(id) },
      ], null, 1);
      return docs[0] ?? null;
    },

    async listDocs(query: DocQuery) {
      const conditions: Condition[] = [{ kind: 'cmp', column: 'kind', op: '=', value: text(query.kind) }];
      if (query.project !== undefined) conditions.push({ kind: 'cmp', column: 'project', op: '=', value: text(query.project) });
      const before = query.beforeMs === undefined ? null : Math.ceil(finiteNumber(query.beforeMs));
      return readDocs('listDocs', conditions, before, docLimit(query.limit));
    },

    async deleteDoc(kind: string, project: string, id: string) {
      await migrate();
      await insert('deleteDoc', 'docs', DOC_COLUMNS, [{ kind: text(kind), project: text(project), id: text(id), body: 'null', updated_at_ms: Date.now(), deleted: 1, write_seq: nextWriteSeq() }]);
    },
  };
  return store;
}
