import { PermanentError } from '../../runtime/errors/index.ts';
import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { ADDED_COLUMNS } from './clickhouse-schema.ts';
import { onCluster, replicatedTableSql } from './clickhouse-cluster.ts';
import { quoteIdentifier, sql } from './sql-quote.ts';

// A cluster of several shards (docs/clickhouse-cluster.md, "Sharding"): each table of the store is a
// Replicated table `<t>_local` on every server plus a Distributed table `<t>` over them, so every read
// and write of the store keeps its table names. Rows go to a shard by a key that keeps together
// every row that a FINAL or an argMax of ours must see at once: all versions and revisions of a
// unit, and its scores, by unit id. FINAL on a Distributed table runs on each shard (its own rows
// only), which is right exactly because a unit's rows never span two shards.

/** The store's tables, each sharded by this expression over its own columns. */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  units: 'cityHash64(unit_id)',
  unit_revisions: 'cityHash64(unit_id)',
  scores: 'cityHash64(unit_id)',
  score_revisions: 'cityHash64(unit_id)',
  // Reads take argMax per (kind, project, id) over all shards' rows (a GROUP BY merges across
  // shards), so any key would do; one key's rows on one shard also lets merges drop old versions.
  docs: 'cityHash64(kind, project, id)',
};
export const SHARDED_TABLES = Object.keys(SHARDING_KEYS);

/** The name of the Replicated table under the Distributed table `table`. */
export const localTable = (table: string): string => `${table}_local`;

const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) \(/;

/** A `CREATE TABLE IF NOT EXISTS db.t (…) ENGINE = …` of clickhouse-schema.ts made the Replicated `db.t_local` ON CLUSTER. */
export function localTableSql(createSql: string, cluster: string): { table: string; sql: string } {
  const head = CREATE_TABLE.exec(createSql);
  const table = head?.[2] ?? '';
  if (!head || SHARDING_KEYS[table] === undefined) throw new PermanentError(`cannot shard this statement: ${createSql.slice(0, 80)}…`);
  const local = createSql.replace(CREATE_TABLE, `CREATE TABLE IF NOT EXISTS ${head[1] ?? ''}.${localTable(table)} (`);
  return { table, sql: replicatedTableSql(local, cluster) };
}

export interface ColumnInfo {
  name: string;
  type: string;
  default_kind: string;
  default_expression: string;
}

/**
 * The Distributed table over `<table>_local`, with the local table's columns as the server reports
 * them. A MATERIALIZED column becomes an ALIAS of the same expression: 18.16 sends a Distributed
 * insert's materialized columns on to the shards, which refuse them ("Cannot insert column …,
 * because it is MATERIALIZED column"); as an alias it is computed at read, from the same columns.
 */
export function distributedTableSql(database: string, table: string, cluster: string, columns: readonly ColumnInfo[]): string {
  const key = SHARDING_KEYS[table];
  if (key === undefined || columns.length === 0) throw new PermanentError(`cannot make a distributed table of ${table}`);
  const defs = columns.map((c) => {
    const kind = c.default_kind === 'MATERIALIZED' ? 'ALIAS' : c.default_kind;
    const def = kind === '' ? '' : ` ${kind} ${c.default_expression}`;
    return `  \`${quoteIdentifier(c.name)}\` ${c.type}${def}`;
  });
  const db = quoteIdentifier(database);
  const name = quoteIdentifier(table);
  return `CREATE TABLE IF NOT EXISTS ${db}.${name}${onCluster(cluster)} (\n${defs.join(',\n')}\n)\nENGINE = Distributed(${quoteIdentifier(cluster)}, ${db}, ${localTable(name)}, ${key})`;
}

/** How many shards the cluster has, as the connected server's remote_servers say. */
export async function clusterShards(connection: ClickHouseConnection, cluster: string): Promise<number> {
  const rows = await connection.select('cluster shards', sql`SELECT uniqExact(shard_num) AS n FROM system.clusters WHERE cluster = ${cluster}`);
  const n = Number(rows[0]?.n ?? 0);
  if (n === 0) throw new PermanentError(`cluster ${cluster} (TRACECHECK_CLICKHOUSE_CLUSTER) is not in this server's remote_servers; see docs/clickhouse-cluster.md`);
  return n;
}

/** The columns of a table of the database on the connected server, in their order. */
export async function tableColumns(connection: ClickHouseConnection, database: string, table: string): Promise<ColumnInfo[]> {
  const rows = await connection.select('table columns', sql`SELECT name, type, default_kind, default_expression FROM system.columns WHERE database = ${database} AND table = ${table}`);
  return rows.map((r) => ({ name: String(r.name), type: String(r.type), default_kind: String(r.default_kind), default_expression: String(r.default_expression) }));
}

/**
 * What the connected server holds of a sharded schema: every local table Replicated and every
 * Distributed table over it, with all columns (`complete`); tables of another layout among them
 * (`mismatch`: a single server's, or a one-shard cluster's under the Distributed names); or
 * something missing (`incomplete`).
 */
export async function checkShardedSchema(connection: ClickHouseConnection, database: string): Promise<'complete' | 'incomplete' | 'mismatch'> {
  const names = SHARDED_TABLES.flatMap((t) => [t, localTable(t)]);
  const tables = await connection.select('sharded tables', sql`SELECT name, engine FROM system.tables WHERE database = ${database} AND has(${names}, name)`);
  const engineOk = (name: string, engine: string): boolean => (SHARDING_KEYS[name] !== undefined ? engine === 'Distributed' : engine.startsWith('Replicated'));
  if (tables.some((t) => !engineOk(String(t.name), String(t.engine)))) return 'mismatch';
  if (tables.length < names.length) return 'incomplete';
  const columns = await connection.select('added columns', sql`SELECT table, name FROM system.columns WHERE database = ${database} AND has(${names}, table)`);
  const have = new Set(columns.map((c) => `${String(c.table)}.${String(c.name)}`));
  return ADDED_COLUMNS.every((a) => have.has(`${a.table}.${a.column}`) && have.has(`${localTable(a.table)}.${a.column}`)) ? 'complete' : 'incomplete';
}

/** What a sharded store adds to its inserts: acknowledged once on the shard, and the same replica as its reads. */
export const SHARDED_INSERT_SETTINGS = { insert_distributed_sync: 1, load_balancing: 'in_order' } as const;
/** Reads take each shard's first live replica (in remote_servers order), where the inserts went. */
export const SHARDED_READ_SETTINGS = { load_balancing: 'in_order' } as const;
