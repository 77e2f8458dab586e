import { PermanentError } from '../../runtime/errors/index.ts';
import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { ADDED_COLUMNS } from './clickhouse-schema.ts';
import { quoteIdentifier, quoteString, sql } from './sql-quote.ts';

// A replicated deployment (TRACECHECK_CLICKHOUSE_CLUSTER): the schema's statements are the single
// server's, rewritten here to run ON CLUSTER with Replicated*MergeTree engines, so one definition of
// each table serves both and a column added to it reaches the cluster without a second copy.

/** Where a table's replicas meet in ZooKeeper/Keeper; {shard} and {replica} are each server's macros. */
function replicationPath(database: string, table: string): string {
  return `/clickhouse/tables/{shard}/${database}/${table}`;
}

const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS (`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\.(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*) \(/;
const ENGINE = /\nENGINE = (Replacing|Aggregating|Summing|Collapsing|VersionedCollapsing)?MergeTree\(([^)]*)\)/;

const unquote = (name: string): string => (name.startsWith('`') ? name.slice(1, -1) : name);

/** `ON CLUSTER <name>` for a statement (a plain identifier, as the config requires). */
export function onCluster(cluster: string): string {
  return ` ON CLUSTER ${quoteIdentifier(cluster)}`;
}

/**
 * A `CREATE TABLE IF NOT EXISTS db.t (…) ENGINE = XMergeTree(args)` of clickhouse-schema.ts made
 * `… db.t ON CLUSTER c (…) ENGINE = ReplicatedXMergeTree('/clickhouse/tables/{shard}/db/t', '{replica}', args)`.
 * A statement of another shape is a bug of ours: refused rather than run unreplicated.
 */
export function replicatedTableSql(createSql: string, cluster: string): string {
  const head = CREATE_TABLE.exec(createSql);
  const engine = ENGINE.exec(createSql);
  if (!head || !engine) throw new PermanentError(`cannot make this statement replicated: ${createSql.slice(0, 80)}…`);
  const [, db = '', table = ''] = head;
  const [, kind = '', args = ''] = engine;
  const path = quoteString(replicationPath(unquote(db), unquote(table)));
  const engineArgs = [path, quoteString('{replica}'), ...(args.trim() === '' ? [] : [args.trim()])].join(', ');
  return createSql
    .replace(CREATE_TABLE, `CREATE TABLE IF NOT EXISTS ${db}.${table}${onCluster(cluster)} (`)
    .replace(ENGINE, `\nENGINE = Replicated${kind}MergeTree(${engineArgs})`);
}

/** `CREATE DATABASE IF NOT EXISTS db` or `ALTER TABLE db.t ADD COLUMN …` run on every host of the cluster. */
export function clusterStatementSql(statement: string, cluster: string): string {
  const create = /^CREATE DATABASE IF NOT EXISTS (`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)$/.exec(statement);
  if (create) return `${statement}${onCluster(cluster)}`;
  const alter = /^ALTER TABLE (`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\.(\S+) (ADD COLUMN .*)$/s.exec(statement);
  if (alter) return `ALTER TABLE ${alter[1] ?? ''}.${alter[2] ?? ''}${onCluster(cluster)} ${alter[3] ?? ''}`;
  throw new PermanentError(`cannot run this statement on a cluster: ${statement.slice(0, 80)}…`);
}

/** The store's tables, each of which a replicated database holds with a Replicated engine. */
const TABLES = ['units', 'scores', 'docs', 'unit_revisions', 'score_revisions'] as const;

/**
 * What the connected replica holds: every table replicated with every column (`complete`), a table
 * of a single server among them (`unreplicated`), or something missing (`incomplete`).
 */
export async function checkReplicatedSchema(connection: ClickHouseConnection, database: string): Promise<'complete' | 'incomplete' | 'unreplicated'> {
  const tables = await connection.select('replicated tables', sql`SELECT name, engine FROM system.tables WHERE database = ${database} AND has(${[...TABLES]}, name)`);
  if (tables.some((t) => !String(t.engine).startsWith('Replicated'))) return 'unreplicated';
  if (tables.length < TABLES.length) return 'incomplete';
  const columns = await connection.select('added columns', sql`SELECT table, name FROM system.columns WHERE database = ${database} AND has(${[...TABLES]}, table)`);
  const have = new Set(columns.map((c) => `${String(c.table)}.${String(c.name)}`));
  return ADDED_COLUMNS.every((a) => have.has(`${a.table}.${a.column}`)) ? 'complete' : 'incomplete';
}
