import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { PermanentError } from '../errors/index.ts';
import { createSerialQueue } from '../flow/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Score, Unit } from '../schemas/index.ts';
import type { AggregateQuery, DocQuery, ScoreQuery, ScoredUnit, Store, StoredDoc, UnitQuery, UnitRevision, UnitWriteResult } from './contract.ts';
import { normalizeAggregateQuery, normalizeUnitQuery, revisionConditions, type Condition } from './conditions.ts';
import { UNIT_SUMMARY_COLUMNS, docLimit, docToRow, finiteNumber, rowToAggregate, rowToDoc, rowToUnitSummary, rowToValueCount, text } from './monitoring-rows.ts';
import { clientLoggerClass } from './clickhouse-client-logger.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import {
  ADDED_COLUMNS,
  addColumnSql,
  createDatabaseSql,
  parseClickHouseVersion,
  docsTableSql,
  scoreRevisionsTableSql,
  scoresTableSql,
  unitRevisionsTableSql,
  unitsTableSql,
  type ClickHouseFeatures,
} from './clickhouse-schema.ts';
import { SCORE_FIELDS, UNIT_COLUMNS, createWriteSequence, jsonToUnit, normalizeScoreQuery, rowsToScores, scoreToRow } from './rows.ts';
import {
  UNIT_REVISION_COLUMNS,
  decideUnitWrites,
  isRefused,
  prepareUnits,
  readKnownRevisions,
  rowToUnitRevision,
  scoresOfRevisions,
  throwIfRefused,
  toWriteResult,
  unitRevisionRow,
} from './revisions.ts';
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
const UNIT_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', 'revision', ...UNIT_COLUMNS.map(col)];
const UNIT_REVISION_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', ...UNIT_REVISION_COLUMNS];
// Rows migrated from before revisions carry no hashes: their JSON is read to compute them.
const REVISION_SELECT = sql`unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, if(content_hash = '', unit_json, '') AS legacy_json`;
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
const UNIT_COLUMNS_OF_SCORES = new Set(['check', 'check_version', 'unit_id', 'unit_revision', 'project', 'agent_name', 'agent_version', 'environment', 'service', 'unit_kind', 'unit_end_time_ms']);

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
    for (const added of ADDED_COLUMNS) {
      const cols = await select('columns', sql`SELECT name FROM system.columns WHERE database = ${options.database} AND table = ${added.table} AND name = ${added.column}`);
      if (cols.length === 0) await command(`add ${added.column} to ${added.table}`, addColumnSql(schema, added));
    }
    const history = await select('tables', sql`SELECT name FROM system.tables WHERE database = ${options.database} AND name = 'unit_revisions'`);
    if (history.length === 0) await copyToRevisions(f, schema);
    await command('create unit revisions table', unitRevisionsTableSql(schema));
    await command('create score revisions table', scoreRevisionsTableSql(f, schema));
    log.info({ version: f.version, modern: f.modern, database }, 'clickhouse schema ready');
  }

  /**
   * A database from before revisions: what it holds becomes revision 1. Copied into tables under
   * another name and renamed at the end, so a start that dies half-way copies again next time
   * rather than leaving a history without some units. Two processes migrating at once copy twice
   * (the copies share keys and versions: reads and merges keep one), and the second rename fails
   * harmlessly on the table the first put in place.
   */
  async function copyToRevisions(f: ClickHouseFeatures, schema: { database: string; ttlDays: number | undefined }): Promise<void> {
    const scoreCols = SCORE_FIELDS.map(col).join(', ');
    await command('create unit revisions copy', unitRevisionsTableSql(schema, 'unit_revisions_migrating'));
    await command('create score revisions copy', scoreRevisionsTableSql(f, schema, 'score_revisions_migrating'));
    await command('copy units to revisions', `INSERT INTO ${database}.unit_revisions_migrating (${UNIT_REVISION_INSERT_COLUMNS.join(', ')}) SELECT write_seq, unit_id, project, 1, '', '', '', span_count, assembled_at_ms, assembled_at_ms, unit_json FROM ${database}.units FINAL`);
    await command('copy scores to revisions', `INSERT INTO ${database}.score_revisions_migrating (write_seq, ${scoreCols}) SELECT write_seq, ${scoreCols} FROM ${database}.scores FINAL`);
    try {
      await command('put revisions in place', `RENAME TABLE ${database}.unit_revisions_migrating TO ${database}.unit_revisions, ${database}.score_revisions_migrating TO ${database}.score_revisions`);
    } catch (err) {
      const placed = await select('tables', sql`SELECT name FROM system.tables WHERE database = ${options.database} AND name = 'unit_revisions'`);
      if (placed.length === 0) throw err;
      log.info({ database }, 'another process put the revision tables in place first');
    }
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

  // Revisions are decided from what is stored, so two writes of this process never decide at once.
  // (Across processes they do not meet: units are keyed by unit id on the bus, so one scorer at a
  // time handles a unit.)
  const writes = createSerialQueue();

  async function knownRevisionsPart(ids: string[]): Promise<UnitRevision[]> {
    const rows = await select('knownRevisions', sql`SELECT ${REVISION_SELECT} FROM ${db}.unit_revisions WHERE unit_id IN (${joinSql(ids.map((id) => sql`${id}`), ', ')})`);
    return rows.map((r) => rowToUnitRevision(r, log));
  }

  /** `latest`: the latest revision of units already known (from this write); the others are read. */
  async function writeScores(scores: readonly Score[], latest: Map<string, number>): Promise<void> {
    if (scores.length === 0) return;
    const rows = scores.map(scoreToRow);
    await migrate();
    const unknown = rows.map((r) => String(r.unit_id)).filter((id) => !latest.has(id));
    if (unknown.length > 0) for (const k of await readKnownRevisions(unknown, knownRevisionsPart)) latest.set(k.unit_id, Math.max(latest.get(k.unit_id) ?? 0, k.revision));
    // Sequence numbers in batch order: a later element for the same key wins on read and merge.
    const stamped = rows.map((r) => ({
      ...r,
      unit_revision: Number(r.unit_revision ?? latest.get(String(r.unit_id)) ?? 1),
      passed: r.passed === null ? null : r.passed ? 1 : 0,
      write_seq: nextWriteSeq(),
    }));
    // Only scores of a unit's latest revision are its scores; a replayed older revision stays in the history.
    const current = stamped.filter((r) => r.unit_revision >= (latest.get(String(r.unit_id)) ?? 0));
    await Promise.all([insert('writeScores', 'score_revisions', SCORE_INSERT_COLUMNS, stamped), current.length > 0 ? insert('writeScores', 'scores', SCORE_INSERT_COLUMNS, current) : null]);
  }

  async function writeScoredUnits(items: readonly ScoredUnit[]): Promise<UnitWriteResult[]> {
    if (items.length === 0) return [];
    const prepared = prepareUnits(items.map((i) => i.unit));
    await migrate();
    const { known, decisions } = await decideUnitWrites(prepared, knownRevisionsPart);
    const storedAtMs = Date.now();
    const revisionRows: Record<string, unknown>[] = [];
    const unitRows: Record<string, unknown>[] = [];
    const latest = new Map<string, number>();
    const assembledBefore = new Map<string, number>();
    for (const k of known) assembledBefore.set(k.unit_id, Math.max(assembledBefore.get(k.unit_id) ?? 0, k.assembled_at_ms));
    decisions.forEach((d, i) => {
      if (isRefused(d)) return;
      const { row, fingerprint } = prepared[i];
      latest.set(d.unit_id, Math.max(latest.get(d.unit_id) ?? 0, d.revision));
      if (d.fresh) revisionRows.push({ ...unitRevisionRow(row, fingerprint, d.revision, storedAtMs), write_seq: nextWriteSeq() });
      // The units table keeps, once merged, the row with the highest assembled_at_ms (its engine's
      // version): a newer revision's row carries one above every earlier revision's, even when it was
      // assembled earlier (another assembler, a skewed clock). The unit's own time stays in its JSON.
      const version = Math.max(Number(row.assembled_at_ms), (assembledBefore.get(d.unit_id) ?? -1) + 1);
      assembledBefore.set(d.unit_id, Math.max(assembledBefore.get(d.unit_id) ?? 0, version));
      if (d.latest) unitRows.push({ ...row, assembled_at_ms: version, revision: d.revision, truncated: row.truncated ? 1 : 0, write_seq: nextWriteSeq() });
    });
    for (const k of known) latest.set(k.unit_id, Math.max(latest.get(k.unit_id) ?? 0, k.revision));
    // The four inserts run at once (one round trip's wait, not four). Any of them failing fails the
    // write, and its retry (the same content) decides the same revisions again: a revision already in
    // the history is found by its hash, one that is not gets the same next number.
    await Promise.all([
      revisionRows.length > 0 ? insert('writeUnitRevisions', 'unit_revisions', UNIT_REVISION_INSERT_COLUMNS, revisionRows) : null,
      unitRows.length > 0 ? insert('writeUnits', 'units', UNIT_INSERT_COLUMNS, unitRows) : null,
      writeScores(scoresOfRevisions(items, decisions), latest),
    ]);
    return decisions.map(toWriteResult);
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

    writeScoredUnits: (items) => writes.run(() => writeScoredUnits(items)),

    async writeUnits(units: readonly Unit[]) {
      return throwIfRefused(await store.writeScoredUnits(units.map((unit) => ({ unit, scores: [] }))));
    },

    writeScores: (scores) => writes.run(() => writeScores(scores, new Map())),

    async getUnitRevision(unitId: string, project?: string, revision?: number) {
      await migrate();
      const rows = await select(
        'getUnitRevision',
        sql`SELECT ${REVISION_SELECT}, unit_json FROM ${db}.unit_revisions${where(revisionConditions(unitId, project, revision))} ORDER BY revision DESC, write_seq DESC LIMIT 1`,
      );
      const first = rows[0];
      if (!first) return null;
      const unit = jsonToUnit(first.unit_json, log);
      return unit ? { ...rowToUnitRevision(first, log), unit } : null;
    },

    async listUnitRevisions(unitId: string, project?: string) {
      await migrate();
      const rows = await select(
        'listUnitRevisions',
        sql`SELECT ${REVISION_SELECT} FROM ${db}.unit_revisions FINAL${where(revisionConditions(unitId, project, undefined))} ORDER BY revision`,
      );
      return rows.map((r) => rowToUnitRevision(r, log));
    },

    async getUnit(unitId: string, project?: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      await migrate();
      const inProject = project === undefined ? sql`` : sql` AND project = ${text(project)}`;
      // The latest revision (rows from before revisions are all revision 1: the newest assembly wins);
      // write_seq breaks a tie. Works before and after background merges.
      const rows = await select(
        'getUnit',
        sql`SELECT unit_json FROM ${db}.units WHERE unit_id = ${unitId}${inProject} ORDER BY revision DESC, assembled_at_ms DESC, write_seq DESC LIMIT 1`,
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
      const table = nq.history ? sql`score_revisions` : sql`scores`;
      const rows = await select(
        'queryScores',
        sql`SELECT ${SCORE_SELECT} FROM ${db}.${table} FINAL${scoreFilters(nq.conditions)} ORDER BY created_at_ms DESC, unit_id, \`check\`, check_version LIMIT ${nq.limit}`,
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
