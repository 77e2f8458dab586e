import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { PermanentError, RetriableError } from '../errors/index.ts';
import { createSerialQueue } from '../flow/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Score, Unit } from '../schemas/index.ts';
import type { AggregateQuery, DocQuery, ScoreQuery, ScoredUnit, Store, StoredDoc, UnitQuery, UnitWriteResult } from './contract.ts';
import { DEFAULT_PROJECT, normalizeAggregateQuery, normalizeUnitQuery, revisionConditions, type Condition } from './conditions.ts';
import { UNIT_SUMMARY_COLUMNS, docLimit, docToRow, finiteNumber, rowToAggregate, rowToDoc, rowToUnitSummary, rowToValueCount, text } from './monitoring-rows.ts';
import { SCORE_FIELDS, UNIT_COLUMNS, jsonToUnit, lastPerScoreKey, normalizeScoreQuery, rowsToScores, scoreToRow, type ScoreRow } from './rows.ts';
import {
  decideUnitWrites,
  isRefused,
  prepareUnits,
  rowToUnitRevision,
  scoresOfRevisions,
  throwIfRefused,
  toWriteResult,
} from './revisions.ts';

export interface DuckDbStoreOptions {
  /** A file path (its directory is created if missing) or `:memory:`. */
  path: string;
  log: Logger;
  /**
   * DuckDB's memory limit, e.g. `1GB` (its buffer pool: the primary-key indexes, which stay in
   * memory and grow with the rows, cached pages of the file and query state; past it DuckDB evicts
   * pages or spills to a temp file, and writes slow to a crawl once the indexes no longer fit).
   * Default: DuckDB's own, 80% of RAM.
   */
  memoryLimit?: string;
}

// Values are bound ($1, …) or appended, never spliced; the only text in SQL is constant names.
const q = (name: string): string => `"${name}"`;

type DuckType = 'VARCHAR' | 'DOUBLE' | 'BIGINT' | 'INTEGER' | 'BOOLEAN';
interface Column {
  name: string;
  type: DuckType;
  nullable: boolean;
}

const c = (name: string, type: DuckType, nullable = false): Column => ({ name, type, nullable });

const SCORE_COLUMNS: readonly Column[] = [
  c('schema_version', 'INTEGER'),
  c('unit_id', 'VARCHAR'),
  c('unit_kind', 'VARCHAR'),
  c('check', 'VARCHAR'),
  c('check_version', 'VARCHAR'),
  c('status', 'VARCHAR'),
  c('value', 'DOUBLE', true),
  c('passed', 'BOOLEAN', true),
  c('explanation', 'VARCHAR'),
  c('method', 'VARCHAR'),
  c('error', 'VARCHAR', true),
  c('judge_model', 'VARCHAR', true),
  c('latency_ms', 'DOUBLE'),
  c('input_tokens', 'BIGINT'),
  c('output_tokens', 'BIGINT'),
  c('cost_usd', 'DOUBLE'),
  c('agent_name', 'VARCHAR', true),
  c('agent_version', 'VARCHAR', true),
  c('environment', 'VARCHAR', true),
  c('service', 'VARCHAR', true),
  c('unit_end_time_ms', 'DOUBLE'),
  c('created_at_ms', 'BIGINT'),
  c('project', 'VARCHAR'),
  c('unit_revision', 'INTEGER'),
];

const UNIT_COLUMN_TYPES: readonly Column[] = [
  c('unit_id', 'VARCHAR'),
  c('kind', 'VARCHAR'),
  c('agent_name', 'VARCHAR', true),
  c('agent_version', 'VARCHAR', true),
  c('environment', 'VARCHAR', true),
  c('service', 'VARCHAR', true),
  c('conversation_id', 'VARCHAR', true),
  c('model', 'VARCHAR', true),
  c('start_time_ms', 'BIGINT'),
  c('end_time_ms', 'BIGINT'),
  c('span_count', 'BIGINT'),
  c('truncated', 'BOOLEAN'),
  c('assembled_at_ms', 'BIGINT'),
  c('unit_json', 'VARCHAR'),
  c('project', 'VARCHAR'),
];

if (SCORE_COLUMNS.map((x) => x.name).join() !== SCORE_FIELDS.join() || UNIT_COLUMN_TYPES.map((x) => x.name).join() !== UNIT_COLUMNS.join()) {
  throw new Error('duckdb columns out of step with the row shapes in rows.ts');
}

const columnDefs = (cols: readonly Column[]): string => cols.map((x) => `  ${q(x.name)} ${x.type}${x.nullable ? '' : ' NOT NULL'}`).join(',\n');

// `scores` and `units` hold the latest revision of every unit (what every read but the history
// sees); `score_revisions` and `unit_revisions` keep every revision.
const SCORES_DDL = `CREATE TABLE IF NOT EXISTS scores (
${columnDefs(SCORE_COLUMNS)},
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (unit_id, "check", check_version)
)`;

const SCORE_REVISIONS_DDL = `CREATE TABLE IF NOT EXISTS score_revisions (
${columnDefs(SCORE_COLUMNS)},
  PRIMARY KEY (unit_id, unit_revision, "check", check_version)
)`;

const UNITS_DDL = `CREATE TABLE IF NOT EXISTS units (
${columnDefs(UNIT_COLUMN_TYPES)},
  revision INTEGER DEFAULT 1,
  PRIMARY KEY (unit_id)
)`;

const UNIT_REVISIONS_DDL = `CREATE TABLE IF NOT EXISTS unit_revisions (
  unit_id VARCHAR NOT NULL,
  project VARCHAR NOT NULL,
  revision INTEGER NOT NULL,
  content_hash VARCHAR NOT NULL,
  model_output_hash VARCHAR NOT NULL,
  messages_hash VARCHAR NOT NULL,
  span_count BIGINT NOT NULL,
  assembled_at_ms BIGINT NOT NULL,
  stored_at_ms BIGINT NOT NULL,
  unit_json VARCHAR NOT NULL,
  PRIMARY KEY (unit_id, revision)
)`;

const DOCS_DDL = `CREATE TABLE IF NOT EXISTS docs (
  kind VARCHAR NOT NULL,
  project VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  body VARCHAR NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (kind, project, id)
)`;

// Files written before projects existed: the column arrives with its default.
const ADD_PROJECT_COLUMNS = [
  `ALTER TABLE scores ADD COLUMN IF NOT EXISTS project VARCHAR DEFAULT '${DEFAULT_PROJECT}'`,
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS project VARCHAR DEFAULT '${DEFAULT_PROJECT}'`,
  // Files written before revisions: what they hold is revision 1.
  `ALTER TABLE scores ADD COLUMN IF NOT EXISTS unit_revision INTEGER DEFAULT 1`,
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS revision INTEGER DEFAULT 1`,
];

// Run once, when the history tables are created in a file that already holds units and scores:
// they become revision 1 (their hashes are computed from the JSON when first needed).
const COPY_LEGACY = [
  `INSERT OR IGNORE INTO unit_revisions SELECT unit_id, project, 1, '', '', '', span_count, assembled_at_ms, assembled_at_ms, unit_json FROM units`,
  `INSERT OR IGNORE INTO score_revisions (${SCORE_FIELDS.map(q).join(', ')}) SELECT ${SCORE_FIELDS.map(q).join(', ')} FROM scores`,
];


// Per-row INSERT statements cost tens of ms each (primary-key checks per statement); a batch is
// appended into a per-connection staging table and moved with one INSERT … SELECT instead. Staging
// columns hold what JavaScript has (text, double, boolean); the INSERT casts to the real types.
const stagingType = (t: DuckType): DuckType => (t === 'BIGINT' || t === 'INTEGER' ? 'DOUBLE' : t);
const stagingDdl = (table: string, cols: readonly Column[]): string =>
  `CREATE TEMP TABLE IF NOT EXISTS ${table} (${cols.map((x) => `${q(x.name)} ${stagingType(x.type)}`).join(', ')})`;
const SCORES_STAGING = 'scores_staging';
const UNITS_STAGING = 'units_staging';

// A staged unit: its row, its revision and hashes, and whether it is the unit's latest revision.
const UNIT_STAGING_COLUMNS: readonly Column[] = [
  ...UNIT_COLUMN_TYPES,
  c('revision', 'INTEGER'),
  c('content_hash', 'VARCHAR'),
  c('model_output_hash', 'VARCHAR'),
  c('messages_hash', 'VARCHAR'),
  c('stored_at_ms', 'BIGINT'),
  c('is_latest', 'BOOLEAN'),
];
type UnitStagingRow = Record<(typeof UNIT_STAGING_COLUMNS)[number]['name'], DuckDBValue>;

const LATEST_REVISION = (alias: string): string => `(SELECT max(r.revision) FROM unit_revisions r WHERE r.unit_id = ${alias}.unit_id)`;

// Scores without a revision are of the unit's latest; every score goes to the history, and to
// `scores` only when it is of the unit's latest revision (a replay of an older one stays in history).
// (Each statement costs milliseconds: the revision lookup runs only when some score lacks one.)
const SCORE_WRITES = (rows: readonly ScoreRow[]): string[] => {
  const cols = SCORE_FIELDS.map(q).join(', ');
  return [
    ...(rows.some((r) => r.unit_revision === null) ? [`UPDATE ${SCORES_STAGING} SET unit_revision = coalesce(${LATEST_REVISION(SCORES_STAGING)}, 1) WHERE unit_revision IS NULL`] : []),
    `INSERT OR REPLACE INTO score_revisions (${cols}) SELECT ${cols} FROM ${SCORES_STAGING}`,
    `INSERT OR REPLACE INTO scores (${cols}, created_at) SELECT ${cols}, epoch_ms(CAST(created_at_ms AS BIGINT)) FROM ${SCORES_STAGING} s WHERE s.unit_revision >= coalesce(${LATEST_REVISION('s')}, 0)`,
  ];
};

// New revisions join the history; the latest one of each unit becomes the unit. The unit's JSON
// is kept once, in its revision: `units.unit_json` is written empty (rows written before hold it
// too) and read through the revision (UNIT_JSON_OF). Written twice, the JSON was half of the bytes
// every scored unit cost DuckDB (its log and checkpoints): about a quarter of the store's CPU.
const UNIT_WRITES = (() => {
  const cols = UNIT_COLUMNS.map(q).join(', ');
  const values = UNIT_COLUMNS.map((x) => (x === 'unit_json' ? `'' AS ${q(x)}` : q(x))).join(', ');
  const updates = [...UNIT_COLUMNS.filter((x) => x !== 'unit_id'), 'revision']
    .map((x) => `${q(x)} = excluded.${q(x)}`)
    .join(', ');
  return [
    `INSERT OR IGNORE INTO unit_revisions SELECT unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, unit_json FROM ${UNITS_STAGING}`,
    `INSERT INTO units (${cols}, revision) SELECT ${values}, revision FROM ${UNITS_STAGING} WHERE is_latest ON CONFLICT (unit_id) DO UPDATE SET ${updates} WHERE excluded.revision >= units.revision`,
  ];
})();

// A unit's JSON is its latest revision's (see UNIT_WRITES).
const UNIT_JSON_OF = `SELECT r.unit_json FROM units u JOIN unit_revisions r ON r.unit_id = u.unit_id AND r.revision = u.revision`;

const REVISION_SELECT = `unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, CASE WHEN content_hash = '' THEN unit_json ELSE '' END AS legacy_json`;

const SCORE_SELECT_COLUMNS = SCORE_FIELDS.map(q).join(', ');

/** Renders a condition tree with bound values (`bind` returns the placeholder). */
function render(cond: Condition, bind: (v: DuckDBValue) => string): string {
  switch (cond.kind) {
    case 'cmp':
      return `${q(cond.column)} ${cond.op} ${bind(cond.value)}`;
    case 'in':
      return `${q(cond.column)} IN (${cond.values.map(bind).join(', ')})`;
    case 'null':
      return `${q(cond.column)} IS NULL`;
    case 'and':
    case 'or':
      return `(${cond.parts.map((p) => render(p, bind)).join(cond.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

/** A WHERE clause and its values. */
function whereClause(conditions: readonly Condition[]): { sql: string; values: DuckDBValue[]; bind: (v: DuckDBValue) => string } {
  const values: DuckDBValue[] = [];
  const bind = (v: DuckDBValue): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const sql = conditions.length > 0 ? ` WHERE ${conditions.map((x) => render(x, bind)).join(' AND ')}` : '';
  return { sql, values, bind };
}

function classify(err: unknown, action: string): Error {
  if (err instanceof PermanentError || err instanceof RetriableError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // DuckDB reports I/O and lock conflicts (another process holds the file) as such; retrying may help.
  if (/\bIO Error\b|Could not set lock|Conflicting lock|Transaction conflict/i.test(message)) {
    return new RetriableError(`duckdb ${action} failed: ${message}`, { cause: err });
  }
  return new PermanentError(`duckdb ${action} failed: ${message}`, { cause: err });
}

async function inTransaction<T>(c: DuckDBConnection, log: Logger, fn: () => Promise<T>): Promise<T> {
  await c.run('BEGIN TRANSACTION');
  try {
    const out = await fn();
    await c.run('COMMIT');
    return out;
  } catch (err) {
    await c.run('ROLLBACK').catch((rollbackErr: unknown) => log.error({ err: rollbackErr }, 'duckdb rollback failed'));
    throw err;
  }
}

/**
 * One value into a staging column (text, double or boolean, see stagingType). The typed appends
 * store what `appendValue` did (it boxes each value in a native DuckDB value first, which cost
 * more than the row's write and left garbage for each cell); anything else goes through it.
 */
function appendCell(appender: DuckDBAppender, value: DuckDBValue): void {
  if (value === null) appender.appendNull();
  else if (typeof value === 'string') appender.appendVarchar(value);
  else if (typeof value === 'number') appender.appendDouble(value);
  else if (typeof value === 'boolean') appender.appendBoolean(value);
  else appender.appendValue(value);
}

/** Appends rows to a staging table, runs the statements that move them, and empties it. Inside a transaction. */
async function moveThroughStaging<K extends string>(c: DuckDBConnection, staging: string, columns: readonly K[], rows: readonly Record<K, DuckDBValue>[], statements: readonly string[]): Promise<void> {
  if (rows.length === 0) return;
  await c.run(`DELETE FROM ${staging}`);
  const appender = await c.createAppender(staging, 'main', 'temp');
  try {
    for (const row of rows) {
      for (const col of columns) appendCell(appender, row[col]);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  for (const statement of statements) await c.run(statement);
  await c.run(`DELETE FROM ${staging}`);
}

/** The embedded store: one DuckDB file (or memory), one connection, one operation at a time. */
export function createDuckDbStore(options: DuckDbStoreOptions): Store {
  const log = options.log;
  let instance: DuckDBInstance | null = null;
  let connection: DuckDBConnection | null = null;
  let opening: Promise<DuckDBConnection> | null = null;
  let migrated = false;
  let closed = false;
  // DuckDB has one writer and a connection runs one statement at a time: every operation queues here.
  const operations = createSerialQueue();

  async function open(): Promise<DuckDBConnection> {
    if (closed) throw new PermanentError('duckdb store is shut down');
    if (connection) return connection;
    opening ??= (async () => {
      if (options.path !== ':memory:') await mkdir(dirname(options.path), { recursive: true });
      instance = await DuckDBInstance.create(options.path, options.memoryLimit ? { memory_limit: options.memoryLimit } : {});
      connection = await instance.connect();
      return connection;
    })().catch((err: unknown) => {
      // E.g. another process holds the file's lock: let a later call try again.
      opening = null;
      throw err;
    });
    return opening;
  }

  function serialized<T>(action: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    return operations.run(async () => {
      try {
        return await fn(await open());
      } catch (err) {
        throw classify(err, action);
      }
    });
  }

  async function migrate(): Promise<void> {
    await serialized('migrate', async (c) => {
      await c.run(UNITS_DDL);
      await c.run(SCORES_DDL);
      await c.run(DOCS_DDL);
      for (const statement of ADD_PROJECT_COLUMNS) await c.run(statement);
      const history = (await c.runAndReadAll(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'unit_revisions' AND NOT temporary`)).getRowObjectsJS();
      const copyLegacy = Number(history[0]?.n ?? 0) === 0;
      await inTransaction(c, log, async () => {
        await c.run(UNIT_REVISIONS_DDL);
        await c.run(SCORE_REVISIONS_DDL);
        if (copyLegacy) for (const statement of COPY_LEGACY) await c.run(statement);
      });
      // Staging tables of earlier versions (temporary, so only within this connection) are rebuilt.
      await c.run(`DROP TABLE IF EXISTS temp.${UNITS_STAGING}`);
      await c.run(`DROP TABLE IF EXISTS temp.${SCORES_STAGING}`);
      await c.run(stagingDdl(UNITS_STAGING, UNIT_STAGING_COLUMNS));
      await c.run(stagingDdl(SCORES_STAGING, SCORE_COLUMNS));
    });
    migrated = true;
  }

  async function ensureMigrated(): Promise<void> {
    if (!migrated) await migrate();
  }

  /** Revisions are decided and written in one transaction, with every other write queued behind it. */
  async function writeScoredUnits(items: readonly ScoredUnit[]): Promise<UnitWriteResult[]> {
    if (items.length === 0) return [];
    const prepared = prepareUnits(items.map((i) => i.unit));
    await ensureMigrated();
    return serialized('writeScoredUnits', (c) =>
      inTransaction(c, log, async () => {
        const { decisions } = await decideUnitWrites(prepared, async (ids) => {
          const rows = (await c.runAndReadAll(`SELECT ${REVISION_SELECT} FROM unit_revisions WHERE unit_id IN (${ids.map((_, j) => `$${j + 1}`).join(', ')})`, ids)).getRowObjectsJS();
          return rows.map((r) => rowToUnitRevision(r, log));
        });
        const storedAtMs = Date.now();
        // One staged row per (unit, revision): the last item of a revision carries its latest form.
        const staged = new Map<string, UnitStagingRow>();
        decisions.forEach((d, i) => {
          if (isRefused(d)) return;
          const { row, fingerprint } = prepared[i];
          staged.set(JSON.stringify([d.unit_id, d.revision]), { ...row, revision: d.revision, ...fingerprint, stored_at_ms: storedAtMs, is_latest: d.latest });
        });
        await moveThroughStaging(c, UNITS_STAGING, UNIT_STAGING_COLUMNS.map((x) => x.name), [...staged.values()], UNIT_WRITES);
        const scoreRows: ScoreRow[] = lastPerScoreKey(scoresOfRevisions(items, decisions).map(scoreToRow));
        await moveThroughStaging(c, SCORES_STAGING, SCORE_FIELDS, scoreRows, SCORE_WRITES(scoreRows));
        return decisions.map(toWriteResult);
      }),
    );
  }

  const store: Store = {
    kind: 'duckdb',
    name: 'store.duckdb',
    async start() {
      await migrate();
      log.info({ path: options.path }, 'duckdb store ready');
    },
    async shutdown() {
      if (closed) return;
      // Let queued operations finish, including ones queued while we waited, then close at once.
      await operations.idle();
      closed = true;
      connection?.closeSync();
      instance?.closeSync();
      connection = null;
      instance = null;
    },
    migrate,

    writeScoredUnits,

    async writeUnits(units: readonly Unit[]) {
      return throwIfRefused(await writeScoredUnits(units.map((unit) => ({ unit, scores: [] }))));
    },

    async writeScores(scores: readonly Score[]) {
      if (scores.length === 0) return;
      const rows = lastPerScoreKey(scores.map(scoreToRow));
      await ensureMigrated();
      await serialized('writeScores', (c) => inTransaction(c, log, () => moveThroughStaging(c, SCORES_STAGING, SCORE_FIELDS, rows, SCORE_WRITES(rows))));
    },

    async getUnitRevision(unitId: string, project?: string, revision?: number) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      const conditions = revisionConditions(unitId, project, revision);
      const w = whereClause(conditions);
      await ensureMigrated();
      const rows = await serialized('getUnitRevision', async (c) =>
        (await c.runAndReadAll(`SELECT ${REVISION_SELECT}, unit_json FROM unit_revisions${w.sql} ORDER BY revision DESC LIMIT 1`, w.values)).getRowObjectsJS(),
      );
      const first = rows[0];
      if (!first) return null;
      const unit = jsonToUnit(first.unit_json, log);
      return unit ? { ...rowToUnitRevision(first, log), unit } : null;
    },

    async listUnitRevisions(unitId: string, project?: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      const w = whereClause(revisionConditions(unitId, project, undefined));
      await ensureMigrated();
      const rows = await serialized('listUnitRevisions', async (c) => (await c.runAndReadAll(`SELECT ${REVISION_SELECT} FROM unit_revisions${w.sql} ORDER BY revision`, w.values)).getRowObjectsJS());
      return rows.map((r) => rowToUnitRevision(r, log));
    },

    async memoryBytes() {
      if (!connection) return 0; // not opened yet (or shut down): nothing held
      const rows = await serialized('memoryBytes', async (c) => (await c.runAndReadAll('SELECT sum(memory_usage_bytes) AS n FROM duckdb_memory()')).getRowObjectsJS());
      return Number(rows[0]?.n ?? 0);
    },

    async unscoredUnitIds(afterId: string, limit: number) {
      await ensureMigrated();
      const rows = await serialized('unscoredUnitIds', async (c) =>
        (
          await c.runAndReadAll(
            `SELECT u.unit_id FROM units u WHERE u.kind IN ('trace', 'session') AND u.unit_id > $1 AND NOT EXISTS (SELECT 1 FROM scores s WHERE s.unit_id = u.unit_id) ORDER BY u.unit_id LIMIT $2`,
            [text(afterId), Math.max(1, Math.floor(limit))],
          )
        ).getRowObjectsJS(),
      );
      return rows.map((r) => r.unit_id).filter((id): id is string => typeof id === 'string');
    },

    async getUnit(unitId: string, project?: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      await ensureMigrated();
      const rows = await serialized('getUnit', async (c) => {
        const reader =
          project === undefined
            ? await c.runAndReadAll(`${UNIT_JSON_OF} WHERE u.unit_id = $1`, [unitId])
            : await c.runAndReadAll(`${UNIT_JSON_OF} WHERE u.unit_id = $1 AND u.project = $2`, [unitId, text(project)]);
        return reader.getRowObjectsJS();
      });
      const first = rows[0];
      if (!first) return null;
      return jsonToUnit(first.unit_json, log);
    },

    async queryScores(query: ScoreQuery) {
      const nq = normalizeScoreQuery(query);
      if (nq.empty) return [];
      const w = whereClause(nq.conditions);
      const table = nq.history ? 'score_revisions' : 'scores';
      const sqlText = `SELECT ${SCORE_SELECT_COLUMNS} FROM ${table}${w.sql} ORDER BY created_at_ms DESC, unit_id, "check", check_version LIMIT ${w.bind(nq.limit)}`;
      await ensureMigrated();
      const rows = await serialized('queryScores', async (c) => (await c.runAndReadAll(sqlText, w.values)).getRowObjectsJS());
      return rowsToScores(rows, log);
    },

    async aggregateScores(query: AggregateQuery) {
      const nq = normalizeAggregateQuery(query);
      if (nq.empty) return [];
      const w = whereClause(nq.conditions);
      const bucket = nq.bucketMs === undefined ? 'CAST(NULL AS BIGINT)' : `CAST(floor(unit_end_time_ms / ${w.bind(nq.bucketMs)}) * ${w.bind(nq.bucketMs)} AS BIGINT)`;
      const ok = `status = 'ok'`;
      const split = query.splitByAgent === true;
      const sqlText = `SELECT "check" AS "check", ${bucket} AS t,${split ? ' agent_name AS split_agent, agent_version AS split_version,' : ''}
  count(*) AS total,
  count(*) FILTER (WHERE ${ok}) AS n,
  count(*) FILTER (WHERE ${ok} AND passed) AS passed,
  count(*) FILTER (WHERE ${ok} AND passed IS NOT NULL) AS judged,
  count(*) FILTER (WHERE ${ok} AND value IS NOT NULL) AS valued,
  coalesce(sum(value) FILTER (WHERE ${ok}), 0) AS value_sum,
  coalesce(sum(value * value) FILTER (WHERE ${ok}), 0) AS value_sq_sum,
  count(*) FILTER (WHERE status = 'error') AS error_count,
  count(*) FILTER (WHERE status = 'not_run') AS not_run_count,
  avg(created_at_ms - unit_end_time_ms) AS mean_lag_ms
FROM scores${w.sql} GROUP BY 1, 2${split ? ', 3, 4' : ''} ORDER BY 1, 2${split ? ', 3, 4' : ''}`;
      await ensureMigrated();
      const rows = await serialized('aggregateScores', async (c) => (await c.runAndReadAll(sqlText, w.values)).getRowObjectsJS());
      return rows.map(rowToAggregate);
    },

    async valueCounts(query: AggregateQuery) {
      const nq = normalizeAggregateQuery({ ...query, status: 'ok' });
      if (nq.empty) return [];
      const w = whereClause(nq.conditions);
      const sqlText = `SELECT "check" AS "check", value, count(*) AS count FROM scores${w.sql} AND value IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`;
      await ensureMigrated();
      const rows = await serialized('valueCounts', async (c) => (await c.runAndReadAll(sqlText, w.values)).getRowObjectsJS());
      return rows.map((r) => rowToValueCount(r.check, r.value, r.count));
    },

    async listUnits(query: UnitQuery) {
      const nq = normalizeUnitQuery(query);
      if (nq.empty) return [];
      const w = whereClause(nq.conditions);
      const cols = UNIT_SUMMARY_COLUMNS.map(q).join(', ');
      const sqlText = `SELECT ${cols} FROM units${w.sql} ORDER BY end_time_ms DESC, unit_id LIMIT ${w.bind(nq.limit)}`;
      await ensureMigrated();
      const rows = await serialized('listUnits', async (c) => (await c.runAndReadAll(sqlText, w.values)).getRowObjectsJS());
      return rows.map(rowToUnitSummary);
    },

    async putDoc(doc: StoredDoc) {
      const row = docToRow(doc);
      await ensureMigrated();
      await serialized('putDoc', (c) =>
        c.run('INSERT OR REPLACE INTO docs (kind, project, id, body, updated_at_ms) VALUES ($1, $2, $3, $4, $5)', [row.kind, row.project, row.id, row.body, row.updated_at_ms]),
      );
    },

    async getDoc(kind: string, project: string, id: string) {
      await ensureMigrated();
      const rows = await serialized('getDoc', async (c) =>
        (await c.runAndReadAll('SELECT kind, project, id, body, updated_at_ms FROM docs WHERE kind = $1 AND project = $2 AND id = $3', [text(kind), text(project), text(id)])).getRowObjectsJS(),
      );
      return rows[0] ? rowToDoc(rows[0]) : null;
    },

    async listDocs(query: DocQuery) {
      const conditions: Condition[] = [{ kind: 'cmp', column: 'kind', op: '=', value: text(query.kind) }];
      if (query.project !== undefined) conditions.push({ kind: 'cmp', column: 'project', op: '=', value: text(query.project) });
      if (query.beforeMs !== undefined) conditions.push({ kind: 'cmp', column: 'updated_at_ms', op: '<', value: Math.ceil(finiteNumber(query.beforeMs)) });
      const w = whereClause(conditions);
      const sqlText = `SELECT kind, project, id, body, updated_at_ms FROM docs${w.sql} ORDER BY updated_at_ms DESC, id LIMIT ${w.bind(docLimit(query.limit))}`;
      await ensureMigrated();
      const rows = await serialized('listDocs', async (c) => (await c.runAndReadAll(sqlText, w.values)).getRowObjectsJS());
      return rows.map(rowToDoc);
    },

    async deleteDoc(kind: string, project: string, id: string) {
      await ensureMigrated();
      await serialized('deleteDoc', (c) => c.run('DELETE FROM docs WHERE kind = $1 AND project = $2 AND id = $3', [text(kind), text(project), text(id)]));
    },
  };
  return store;
}

