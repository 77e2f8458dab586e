import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { ClickHouseConnection } from './clickhouse-connection.ts';
import {
  ADDED_COLUMNS,
  SEARCH_INDEX,
  addColumnSql,
  hasSkipIndexes,
  searchIndexSql,
  createDatabaseSql,
  parseClickHouseVersion,
  docsTableSql,
  scoreRevisionsTableSql,
  scoresTableSql,
  unitRevisionsTableSql,
  unitsTableSql,
  type ClickHouseFeatures,
} from './clickhouse-schema.ts';
import { clickHouseErrorCode } from './clickhouse-errors.ts';
import { checkReplicatedSchema, clusterStatementSql, onCluster, replicatedTableSql } from './clickhouse-cluster.ts';
import { SHARDED_INSERT_SETTINGS, SHARDED_READ_SETTINGS, SHARDED_TABLES, checkShardedSchema, clusterShards, distributedTableSql, localTable, localTableSql, tableColumns } from './clickhouse-shards.ts';

import { withSchemaLease, type SchemaLeaseOptions } from './clickhouse-lease.ts';
import { assertSupportedClickHouse } from './clickhouse-versions.ts';
import { UNIT_REVISION_INSERT_COLUMNS, col } from './clickhouse-writes.ts';
import { SCORE_FIELDS } from './rows.ts';
import { joinSql, sql } from './sql-quote.ts';
import { FINAL_SAFE_SETTINGS } from './clickhouse-filters.ts';
import { UNIT_TIMES, unitTimesFillSql, unitTimesTableSql } from './clickhouse-unit-times.ts';

export interface ClickHouseMigrationOptions {
  connection: ClickHouseConnection;
  /** The database's plain name (created if missing). */
  database: string;
  ttlDays: number | undefined;
  log: Logger;
  /** A cluster of the servers' `remote_servers`: tables ON CLUSTER with Replicated engines (see docs/clickhouse-cluster.md). */
  cluster?: string | undefined;
  /** The schema lease's timings (tests shorten them). */
  lease?: Pick<SchemaLeaseOptions, 'ttlSeconds' | 'acquireTimeoutMs' | 'pollMs'>;
}

const DATABASE_ALREADY_EXISTS = 82;
/** ILLEGAL_COLUMN: "column with this name already exists", from a host another process's ALTER reached first. */
const COLUMN_EXISTS = 44;

/**
 * The ClickHouse schema brought up to date: the database, its tables, columns added since, and the
 * revision history (a database from before revisions gets its units and scores as revision 1).
 * `migrate()` runs once per store; a failed run may be tried again.
 */
export function createClickHouseMigration(options: ClickHouseMigrationOptions): { migrate: () => Promise<void>; shardedCluster: () => string | undefined; hasUnitTimes: () => boolean } {
  const { connection, log } = options;
  const { select, command, database } = connection;
  const cluster = options.cluster;
  // The single server's statements, or the same run ON CLUSTER with replicated engines.
  const table = (createSql: string): string => (cluster === undefined ? createSql : replicatedTableSql(createSql, cluster));
  const statement = (text: string): string => (cluster === undefined ? text : clusterStatementSql(text, cluster));
  let features: ClickHouseFeatures | null = null;
  let migrated: Promise<void> | null = null;
  /** Whether the cluster has several shards (Distributed tables over Replicated ones), from system.clusters. */
  let sharded = false;
  /** Whether the explorer's time table is there (a single server, once migrated). */
  let unitTimes = false;

  async function detectFeatures(): Promise<ClickHouseFeatures> {
    if (features) return features;
    const rows = await select('version', sql`SELECT version() AS v`);
    const v = rows[0]?.v;
    if (typeof v !== 'string') throw new PermanentError('clickhouse did not report a version');
    assertSupportedClickHouse(v);
    // Asked of system.settings rather than inferred from the version: 18.16 has neither, later releases added them one by one.
    const known = await select('settings', sql`SELECT name FROM system.settings WHERE name IN (${joinSql(Object.keys(FINAL_SAFE_SETTINGS).map((n) => sql`${n}`), ', ')})`);
    const finalSafe = Object.fromEntries(known.map((r) => [String(r.name), 0]));
    sharded = cluster !== undefined && (await clusterShards(connection, cluster)) > 1;
    connection.useSettings(sharded ? { ...finalSafe, ...SHARDED_READ_SETTINGS } : finalSafe);
    if (sharded) connection.useInsertSettings(SHARDED_INSERT_SETTINGS);
    features = parseClickHouseVersion(v);
    return features;
  }

  async function doMigrate(): Promise<void> {
    const f = await detectFeatures();
    if (options.ttlDays !== undefined && !f.modern) {
      log.warn({ version: f.version, ttlDays: options.ttlDays }, 'this ClickHouse has no table TTL; keeping all rows');
    }
    const schema = { database, ttlDays: options.ttlDays };
    if (cluster !== undefined) {
      // Every table and column already on this replica: no DDL, which would wait for every host of
      // the cluster (a service restarting while one replica is down starts all the same).
      const state = sharded ? await checkShardedSchema(connection, options.database) : await checkReplicatedSchema(connection, options.database);
      if (state === 'complete') {
        log.info({ version: f.version, database, cluster, sharded }, 'clickhouse schema ready (replicated)');
        return;
      }
      // Refused before any DDL: ON CLUSTER would make replicated tables on the other hosts.
      if (state === 'unreplicated' || state === 'mismatch') throw notReplicated();
    }
    await createDatabase(schema);
    // One process at a time creates and migrates the tables (every service migrates at its start).
    await withSchemaLease({ connection, log, ...options.lease }, () => migrateTables(f, schema));
    log.info({ version: f.version, modern: f.modern, database }, 'clickhouse schema ready');
  }

  /** IF NOT EXISTS is no guard against a concurrent creation on 18.16: the loser is told it exists. */
  async function createDatabase(schema: { database: string }): Promise<void> {
    try {
      await command('create database', statement(createDatabaseSql(schema)));
    } catch (err) {
      if (clickHouseErrorCode(err instanceof Error && err.cause !== undefined ? err.cause : err) !== DATABASE_ALREADY_EXISTS) throw err;
    }
  }

  async function migrateTables(f: ClickHouseFeatures, schema: { database: string; ttlDays: number | undefined }): Promise<void> {
    if (sharded && cluster !== undefined) return migrateSharded(f, schema, cluster);
    await command('create units table', table(unitsTableSql(f, schema)));
    await command('create scores table', table(scoresTableSql(f, schema)));
    await command('create docs table', table(docsTableSql(schema)));
    for (const added of ADDED_COLUMNS) {
      const cols = await select('columns', sql`SELECT name FROM system.columns WHERE database = ${options.database} AND table = ${added.table} AND name = ${added.column}`);
      if (cols.length === 0) await addColumn(`add ${added.column} to ${added.table}`, statement(addColumnSql(schema, added)));
    }
    // The explorer's search index, on a single server that has skip indexes (not on 18.16; a
    // cluster's tables are left as they are).
    if (cluster === undefined && hasSkipIndexes(f)) {
      const indexes = await select('skip indexes', sql`SELECT name FROM system.data_skipping_indices WHERE database = ${options.database} AND table = 'units' AND name = ${SEARCH_INDEX}`);
      if (indexes.length === 0) for (const text of searchIndexSql(schema)) await command('add search index to units', text);
    }
    if (cluster === undefined) await ensureUnitTimes(f, schema);
    const history = await select('tables', sql`SELECT name FROM system.tables WHERE database = ${options.database} AND name = 'unit_revisions'`);
    // A replicated database is new since revisions: nothing to copy (and no RENAME across the cluster).
    if (history.length === 0 && cluster === undefined) await copyToRevisions(f, schema);
    await command('create unit revisions table', table(unitRevisionsTableSql(schema)));
    await command('create score revisions table', table(scoreRevisionsTableSql(f, schema)));
    // Tables of a single server (made before the cluster was configured) would take writes unreplicated.
    if (cluster !== undefined && (await checkReplicatedSchema(connection, options.database)) !== 'complete') throw notReplicated();
  }

  /**
   * The explorer's time-ordered table (clickhouse-unit-times.ts), on a single server. A database
   * from before it gets a copy of its units, made under another name and renamed at the end, so a
   * start that dies half-way copies again next time.
   */
  async function ensureUnitTimes(f: ClickHouseFeatures, schema: { database: string; ttlDays: number | undefined }): Promise<void> {
    const present = await select('tables', sql`SELECT name FROM system.tables WHERE database = ${options.database} AND name = ${UNIT_TIMES}`);
    if (present.length === 0) {
      const copy = `${UNIT_TIMES}_migrating`;
      await command('drop unit times copy', `DROP TABLE IF EXISTS ${database}.${copy}`);
      await command('create unit times copy', unitTimesTableSql(f, schema, copy));
      await command('copy units to unit times', unitTimesFillSql(options.database, copy));
      await command('put unit times in place', `RENAME TABLE ${database}.${copy} TO ${database}.${UNIT_TIMES}`);
    }
    unitTimes = true;
  }

  function notReplicated(): PermanentError {
    if (sharded) return new PermanentError(`the tables of ${database} are not all sharded (Distributed over Replicated): they were made without TRACECHECK_CLICKHOUSE_CLUSTER or while the cluster had one shard; see docs/clickhouse-cluster.md to move them`);
    return new PermanentError(`the tables of ${database} are not all replicated: they were made without TRACECHECK_CLICKHOUSE_CLUSTER; see docs/clickhouse-cluster.md to move them`);
  }

  /**
   * Several shards: the Replicated `<t>_local` tables and their columns first, then a Distributed
   * table `<t>` over each with the local table's columns. 18.16 refuses ALTER … ON CLUSTER on a
   * Distributed table of a cluster with replicated shards, so one that lacks a column is dropped
   * and made again (it holds no rows: inserts through it are synchronous).
   */
  async function migrateSharded(f: ClickHouseFeatures, schema: { database: string; ttlDays: number | undefined }, name: string): Promise<void> {
    for (const create of [unitsTableSql(f, schema), scoresTableSql(f, schema), docsTableSql(schema), unitRevisionsTableSql(schema), scoreRevisionsTableSql(f, schema)]) {
      const local = localTableSql(create, name);
      await command(`create ${local.table} local table`, local.sql);
    }
    for (const added of ADDED_COLUMNS) {
      const cols = await select('columns', sql`SELECT name FROM system.columns WHERE database = ${options.database} AND table = ${localTable(added.table)} AND name = ${added.column}`);
      const alter = addColumnSql(schema, added).replace(`.${added.table} ADD COLUMN`, `.${localTable(added.table)} ADD COLUMN`);
      if (cols.length === 0) await addColumn(`add ${added.column} to ${localTable(added.table)}`, statement(alter));
    }
    for (const t of SHARDED_TABLES) {
      const local = await tableColumns(connection, options.database, localTable(t));
      const distributed = await tableColumns(connection, options.database, t);
      const same = distributed.length === local.length && local.every((c, i) => distributed[i]?.name === c.name);
      if (distributed.length > 0 && !same) await command(`drop ${t} distributed table`, `DROP TABLE IF EXISTS ${database}.${t}${onCluster(name)}`);
      if (distributed.length === 0 || !same) await command(`create ${t} distributed table`, distributedTableSql(options.database, t, name, local));
    }
    if ((await checkShardedSchema(connection, options.database)) !== 'complete') throw notReplicated();
  }

  /** On a cluster, another process's ALTER may have added the column on some host first: that is done. */
  async function addColumn(action: string, text: string): Promise<void> {
    try {
      await command(action, text);
    } catch (err) {
      if (cluster === undefined || clickHouseErrorCode(err instanceof Error && err.cause !== undefined ? err.cause : err) !== COLUMN_EXISTS) throw err;
    }
  }

  /**
   * A database from before revisions: what it holds becomes revision 1. Copied into tables under
   * another name and renamed at the end, so a start that dies half-way copies again next time
   * rather than leaving a history without some units (a copy cut half-way is copied into again: the
   * copies share keys and versions, and reads and merges keep one). Runs under the schema lease, so
   * no other process renames the tables while this one fills them (it did: "Table
   * <db>.score_revisions_migrating doesn't exist" when services started together on a new database).
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

  return {
    migrate,
    /** The cluster when it has several shards (known once migrated): retention then goes to the local tables. */
    shardedCluster: () => (sharded ? cluster : undefined),
    hasUnitTimes: () => unitTimes,
  };
}
