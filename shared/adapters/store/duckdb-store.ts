import { metricValuesSql, stepMetricsSql, unitMetricsSql } from './duckdb-metrics.ts';
import { normalizeStepQuery, type StepMetricQuery } from './step-metrics.ts';
import { limitGroups, normalizeMetricQuery, normalizeMetricValuesQuery, rowToMetric, rowToMetricValue, type MetricValuesQuery, type UnitMetricQuery } from './unit-metrics.ts';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { PermanentError } from '../../runtime/errors/index.ts';
import { createSerialQueue } from '../../runtime/flow/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Score, Unit } from '../../contracts/schemas/index.ts';
import type { AggregateQuery, DocQuery, ScoreQuery, ScoredUnit, Store, StoredDoc, UnitQuery, UnitWriteResult } from './contract.ts';
import { normalizeAggregateQuery, normalizeUnitQuery, revisionConditions, type Condition } from './conditions.ts';
import { SCORE_STAGING_COLUMNS, SCORES_STAGING, migrateDuckDb, q } from './duckdb-schema.ts';
import { classify, inTransaction, whereClause } from './duckdb-sql.ts';
import { REVISION_SELECT, SCORE_WRITES, badgesOfStagedScores, moveThroughStaging, readRevisions, writePlan } from './duckdb-writes.ts';
import { parseBadges } from './duckdb-badges.ts';
import { UNIT_SUMMARY_COLUMNS, docLimit, docToRow, finiteNumber, rowToAggregate, rowToDoc, rowToUnitSummary, rowToValueCount, text } from './monitoring-rows.ts';
import { SCORE_FIELDS, jsonToUnit, lastPerScoreKey, normalizeScoreQuery, rowsToScores, scoreToRow } from './rows.ts';
import { rowToUnitRevision, throwIfRefused } from './revisions.ts';
import { idChunks } from './id-chunks.ts';
import { writeScoredUnitsWith } from './scored-unit-write.ts';
import { removeOlderThanDuckDb, tableBytesDuckDb } from './duckdb-retention.ts';
import { createStoredUnitIds, readIfStored, type StoredUnitIds } from './stored-unit-ids.ts';
import type { RetentionCut } from './retention.ts';
import { exploreFields, normalizeExplore, type ExploreQuery } from './explore.ts';
import { exploreDuckDbSql } from './explore-duckdb.ts';

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

// A unit's JSON is its latest revision's (see UNIT_WRITES in duckdb-writes.ts).
const UNIT_JSON_OF = `SELECT u.unit_id, r.unit_json FROM units u JOIN unit_revisions r ON r.unit_id = u.unit_id AND r.revision = u.revision`;

const SCORE_SELECT_COLUMNS = SCORE_FIELDS.map(q).join(', ');

/** Every unit id the file holds, read a chunk at a time (the file may hold millions). */
async function readStoredUnitIds(c: DuckDBConnection): Promise<StoredUnitIds> {
  const ids = createStoredUnitIds();
  const result = await c.stream('SELECT unit_id FROM unit_revisions');
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    for (const id of chunk.getColumnValues(0)) if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

/**
 * The embedded store: one DuckDB file (or memory), one connection, one operation at a time.
 * Its tables and migrations are in duckdb-schema.ts, its write path in duckdb-writes.ts.
 */
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

  // The unit ids the file may hold (its tables have no index: a lookup by id scans the table).
  // Built from the file once migrated, then kept by the writes; a lookup asks only for ids it may hold.
  let storedIds: StoredUnitIds = createStoredUnitIds();

  async function migrate(): Promise<void> {
    await serialized('migrate', async (c) => {
      await migrateDuckDb(c, log);
      storedIds = await readStoredUnitIds(c);
    });
    migrated = true;
  }

  async function ensureMigrated(): Promise<void> {
    if (!migrated) await migrate();
  }
  /** Revisions are decided and written in one transaction, with every other write queued behind it. */
  function writeScoredUnits(items: readonly ScoredUnit[]): Promise<UnitWriteResult[]> {
    return writeScoredUnitsWith<DuckDBConnection>(items, {
      exclusive: async (body) => {
        await ensureMigrated();
        return serialized('writeScoredUnits', (c) => inTransaction(c, log, () => body(c)));
      },
      readRevisions: (c, unitIds) => readIfStored(storedIds, unitIds, (ids) => readRevisions(c, ids, log), []),
      write: async (c, plan) => {
        // Added before the write: a write rolled back leaves an id the filter holds in vain, which costs a scan, never a wrong answer.
        for (const a of plan.accepted) storedIds.add(a.decision.unit_id);
        await writePlan(c, plan);
      },
    });
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
      const rows = lastPerScoreKey(scores.map(scoreToRow)).map((r) => ({ ...r, to_latest: null }));
      await ensureMigrated();
      await serialized('writeScores', (c) => inTransaction(c, log, () => moveThroughStaging(c, SCORES_STAGING, SCORE_STAGING_COLUMNS, rows, SCORE_WRITES(rows, 'any'), () => badgesOfStagedScores(c))));
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

    async removeOlderThan(cut: RetentionCut) {
      await ensureMigrated();
      await serialized('removeOlderThan', (c) => removeOlderThanDuckDb(c, cut));
    },

    async tableBytes() {
      await ensureMigrated();
      return serialized('tableBytes', (c) => tableBytesDuckDb(c));
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
      const rows = await readIfStored(
        storedIds,
        [unitId],
        () =>
          serialized('getUnit', async (c) => {
            const reader =
              project === undefined
                ? await c.runAndReadAll(`${UNIT_JSON_OF} WHERE u.unit_id = $1`, [unitId])
                : await c.runAndReadAll(`${UNIT_JSON_OF} WHERE u.unit_id = $1 AND u.project = $2`, [unitId, text(project)]);
            return reader.getRowObjectsJS();
          }),
        [],
      );
      const first = rows[0];
      if (!first) return null;
      return jsonToUnit(first.unit_json, log);
    },

    async getUnits(unitIds: readonly string[], project: string) {
      const found = new Map<string, Unit>();
      await ensureMigrated();
      for (const ids of idChunks(unitIds.filter((id) => storedIds.mayHold(id)))) {
        const marks = ids.map((_, i) => `$${i + 2}`).join(', ');
        // The newest revision first, so that the first row of an id is the one getUnit gives.
        const rows = await serialized('getUnits', async (c) =>
          (await c.runAndReadAll(`${UNIT_JSON_OF} WHERE u.project = $1 AND u.unit_id IN (${marks}) ORDER BY r.revision DESC`, [text(project), ...ids])).getRowObjectsJS(),
        );
        for (const row of rows) {
          if (typeof row.unit_id !== 'string' || found.has(row.unit_id)) continue;
          const unit = jsonToUnit(row.unit_json, log);
          if (unit) found.set(row.unit_id, unit);
        }
      }
      return found;
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

    async unitMetrics(query: UnitMetricQuery) {
      const nq = normalizeMetricQuery(query);
      if (nq.empty) return [];
      const { sql: sqlText, values } = unitMetricsSql(nq);
      await ensureMigrated();
      const rows = await serialized('unitMetrics', async (c) => (await c.runAndReadAll(sqlText, values)).getRowObjectsJS());
      return limitGroups(rows.map((r) => rowToMetric(r, nq)), nq);
    },

    async stepMetrics(query: StepMetricQuery) {
      const nq = normalizeStepQuery(query);
      if (nq.empty) return [];
      const { sql: sqlText, values } = stepMetricsSql(nq);
      await ensureMigrated();
      const rows = await serialized('stepMetrics', async (c) => (await c.runAndReadAll(sqlText, values)).getRowObjectsJS());
      return limitGroups(rows.map((r) => rowToMetric(r, nq)), nq);
    },

    async metricValues(query: MetricValuesQuery) {
      const nq = normalizeMetricValuesQuery(query);
      if (nq.empty) return [];
      const { sql: sqlText, values } = metricValuesSql(nq);
      await ensureMigrated();
      const rows = await serialized('metricValues', async (c) => (await c.runAndReadAll(sqlText, values)).getRowObjectsJS());
      return rows.map(rowToMetricValue);
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

    async exploreUnits(query: ExploreQuery) {
      const nq = normalizeExplore(query);
      if (nq.empty) return [];
      const page = exploreDuckDbSql(nq);
      await ensureMigrated();
      const rows = await serialized('exploreUnits', async (c) => (await c.runAndReadAll(page.sql, page.values)).getRowObjectsJS());
      return rows.map((r) => ({ ...rowToUnitSummary(r), ...exploreFields(r), scores: parseBadges(r.score_badges) }));
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
