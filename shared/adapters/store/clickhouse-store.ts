import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Unit } from '../../contracts/schemas/index.ts';
import type { AggregateQuery, DocQuery, ScoreQuery, Store, StoredDoc, UnitQuery } from './contract.ts';
import { normalizeAggregateQuery, normalizeUnitQuery, revisionConditions, type Condition } from './conditions.ts';
import { UNIT_SUMMARY_COLUMNS, docLimit, docToRow, finiteNumber, rowToAggregate, rowToDoc, rowToUnitSummary, rowToValueCount, text } from './monitoring-rows.ts';
import { createClickHouseConnection } from './clickhouse-connection.ts';
import { metricValuesSql, stepMetricsSql, unitMetricsSql } from './clickhouse-metrics.ts';
import { normalizeStepQuery, type StepMetricQuery } from './step-metrics.ts';
import { limitGroups, normalizeMetricQuery, normalizeMetricValuesQuery, rowToMetric, rowToMetricValue, type MetricValuesQuery, type UnitMetricQuery } from './unit-metrics.ts';
import { scoreFilters, where } from './clickhouse-filters.ts';
import { createClickHouseMigration } from './clickhouse-migration.ts';
import { REVISION_SELECT, createClickHouseWrites } from './clickhouse-writes.ts';
import { SCORE_FIELDS, createWriteSequence, jsonToUnit, normalizeScoreQuery, rowsToScores } from './rows.ts';
import { rowToUnitRevision, throwIfRefused } from './revisions.ts';
import { idChunks } from './id-chunks.ts';
import { joinSql, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';
import { removeOlderThanClickHouse, tableBytesClickHouse } from './clickhouse-retention.ts';
import type { RetentionCut } from './retention.ts';
import { normalizeExplore, type ExploreQuery } from './explore.ts';
import { exploreClickHouse } from './explore-clickhouse.ts';

export interface ClickHouseStoreOptions {
  /** One HTTP URL, or the replicas of a cluster separated by commas (used in turn: failover). */
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
  /** A cluster of the servers' `remote_servers`: replicated tables made ON CLUSTER (docs/clickhouse-cluster.md). */
  cluster?: string | undefined;
  /** Replicas that must have an insert before it is acknowledged; unset: one (see docs/clickhouse-cluster.md). */
  insertQuorum?: number | undefined;
}

const SCORE_SELECT: SqlFragment = joinSql(SCORE_FIELDS.map((f) => (f === 'check' ? sql`\`check\`` : sqlIdentifier(f))), ', ');
const UNIT_SUMMARY_SELECT: SqlFragment = joinSql(UNIT_SUMMARY_COLUMNS.map((f) => sqlIdentifier(f)), ', ');
const DOC_COLUMNS: [string, ...string[]] = ['kind', 'project', 'id', 'body', 'updated_at_ms', 'deleted', 'write_seq'];

/**
 * The production store on ClickHouse, from Debian's 18.16 to current releases. Values reach SQL
 * only through `sql`/quoting (18.16 has no query parameters); rows are inserted as JSONEachRow.
 * The schema and its migrations are in clickhouse-migration.ts, the writes in clickhouse-writes.ts.
 */
export function createClickHouseStore(options: ClickHouseStoreOptions): Store {
  const log = options.log;
  if (options.ttlDays !== undefined && (!Number.isSafeInteger(options.ttlDays) || options.ttlDays < 1)) {
    throw new PermanentError(`ttlDays must be a positive integer, got ${String(options.ttlDays)}`);
  }
  const connection = createClickHouseConnection(options);
  const { db, select, insert } = connection;
  const nextWriteSeq = createWriteSequence();
  const { migrate, shardedCluster, hasUnitTimes } = createClickHouseMigration({ connection, database: options.database, ttlDays: options.ttlDays, cluster: options.cluster, log });
  const writes = createClickHouseWrites({ connection, migrate, nextWriteSeq, hasUnitTimes, log });

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
    shutdown: () => connection.close(),
    migrate,

    writeScoredUnits: writes.writeScoredUnits,

    async writeUnits(units: readonly Unit[]) {
      return throwIfRefused(await store.writeScoredUnits(units.map((unit) => ({ unit, scores: [] }))));
    },

    writeScores: writes.writeScores,

    async removeOlderThan(cut: RetentionCut) {
      await migrate();
      await removeOlderThanClickHouse(connection, cut, shardedCluster(), hasUnitTimes());
    },

    async tableBytes() {
      await migrate();
      return tableBytesClickHouse(connection, shardedCluster());
    },

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

    async getUnits(unitIds: readonly string[], project: string) {
      const found = new Map<string, Unit>();
      for (const ids of idChunks(unitIds)) {
        await migrate();
        const list = joinSql(
          ids.map((id) => sql`${id}`),
          ', ',
        );
        // getUnit's order, its first row per id (LIMIT 1 BY).
        const rows = await select(
          'getUnits',
          sql`SELECT unit_id, unit_json FROM ${db}.units WHERE project = ${text(project)} AND unit_id IN (${list}) ORDER BY unit_id, revision DESC, assembled_at_ms DESC, write_seq DESC LIMIT 1 BY unit_id`,
        );
        for (const row of rows) {
          const unit = typeof row.unit_id === 'string' ? jsonToUnit(row.unit_json, log) : null;
          if (unit) found.set(row.unit_id as string, unit);
        }
      }
      return found;
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

    async unitMetrics(query: UnitMetricQuery) {
      const nq = normalizeMetricQuery(query);
      if (nq.empty) return [];
      await migrate();
      const rows = await select('unitMetrics', unitMetricsSql(db, nq));
      return limitGroups(rows.map((r) => rowToMetric(r, nq)), nq);
    },

    async stepMetrics(query: StepMetricQuery) {
      const nq = normalizeStepQuery(query);
      if (nq.empty) return [];
      await migrate();
      const rows = await select('stepMetrics', stepMetricsSql(db, nq));
      return limitGroups(rows.map((r) => rowToMetric(r, nq)), nq);
    },

    async metricValues(query: MetricValuesQuery) {
      const nq = normalizeMetricValuesQuery(query);
      if (nq.empty) return [];
      await migrate();
      return (await select('metricValues', metricValuesSql(db, nq))).map(rowToMetricValue);
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

    async exploreUnits(query: ExploreQuery) {
      const nq = normalizeExplore(query);
      if (nq.empty) return [];
      await migrate();
      return exploreClickHouse(connection, nq, Date.now(), hasUnitTimes());
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
