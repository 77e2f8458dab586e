import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { RETENTION_TABLES, checkCut, type RetentionCut } from './retention.ts';
import { joinSql, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';
import { localTable } from './clickhouse-shards.ts';
import { UNIT_TIMES } from './clickhouse-unit-times.ts';

function projectCondition(cut: RetentionCut): SqlFragment {
  if (cut.project !== undefined) return sql` AND project = ${cut.project}`;
  if (!cut.exceptProjects || cut.exceptProjects.length === 0) return sql``;
  return sql` AND project NOT IN (${joinSql(cut.exceptProjects.map((p) => sql`${p}`), ', ')})`;
}

/**
 * `ALTER TABLE … DELETE` on every table: a mutation, which the server runs in the background,
 * rewriting the parts that hold matching rows; reads go on meanwhile and see the rows until their
 * part is replaced. Works from 18.16 (which has no TTL) to current servers (where the table TTL,
 * when set, removes the same rows at merges). With several shards (`shardedCluster`) the mutation
 * goes to the Replicated tables under the Distributed ones, ON CLUSTER: one replica of each shard
 * takes it, and the shard's other replicas follow through ZooKeeper/Keeper.
 */
export async function removeOlderThanClickHouse(connection: ClickHouseConnection, cut: RetentionCut, shardedCluster?: string, unitTimes = false): Promise<void> {
  checkCut(cut);
  const { db } = connection;
  const target = (table: string): SqlFragment => (shardedCluster === undefined ? sqlIdentifier(table) : sql`${sqlIdentifier(localTable(table))} ON CLUSTER ${sqlIdentifier(shardedCluster)}`);
  // The explorer's time table (a single server's) loses the rows `units` does.
  const tables = unitTimes ? [...RETENTION_TABLES, { table: UNIT_TIMES, column: 'assembled_at_ms' }] : RETENTION_TABLES;
  for (const { table, column } of tables) {
    const q = sql`ALTER TABLE ${db}.${target(table)} DELETE WHERE ${sqlIdentifier(column)} < ${cut.cutoffMs}${projectCondition(cut)}`;
    await connection.command(`retention ${table}`, q.sqlText);
  }
  if (cut.docKinds.length > 0) {
    const kinds = joinSql(cut.docKinds.map((k) => sql`${k}`), ', ');
    const q = sql`ALTER TABLE ${db}.${target('docs')} DELETE WHERE updated_at_ms < ${cut.cutoffMs} AND kind IN (${kinds})${projectCondition(cut)}`;
    await connection.command('retention docs', q.sqlText);
  }
}

/**
 * Bytes on disk per table of the database (active parts, compressed), from system.parts. Sharded
 * (`shardedCluster`), read through `cluster()` from one replica of every shard and summed, under the
 * Distributed tables' names (the Distributed tables hold no parts): the data's size, one copy of it.
 */
export async function tableBytesClickHouse(connection: ClickHouseConnection, shardedCluster?: string): Promise<Record<string, number>> {
  const parts = shardedCluster === undefined ? sql`system.parts` : sql`cluster(${shardedCluster}, system, parts)`;
  const rows = await connection.select('tableBytes', sql`SELECT table, sum(bytes_on_disk) AS bytes FROM ${parts} WHERE database = ${connection.database} AND active GROUP BY table`);
  const out: Record<string, number> = {};
  for (const r of rows) out[shardedCluster === undefined ? String(r.table) : String(r.table).replace(/_local$/, '')] = Number(r.bytes);
  return out;
}
