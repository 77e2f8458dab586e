import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { BADGES_BACKFILL, badgesBeforeScoreCut } from './duckdb-badges.ts';
import { q } from './duckdb-schema.ts';
import { RETENTION_TABLES, checkCut, type RetentionCut } from './retention.ts';

function projectCondition(cut: RetentionCut, values: DuckDBValue[]): string {
  if (cut.project !== undefined) {
    values.push(cut.project);
    return ` AND project = $${values.length}`;
  }
  if (!cut.exceptProjects || cut.exceptProjects.length === 0) return '';
  const marks = cut.exceptProjects.map((p) => {
    values.push(p);
    return `$${values.length}`;
  });
  return ` AND project NOT IN (${marks.join(', ')})`;
}

/**
 * Deletes what `cut` names, then CHECKPOINT: DuckDB reuses freed blocks of its file only after a
 * checkpoint (the file does not shrink; new rows fill the space). One statement per table, each
 * its own transaction, so readers queued behind the store wait for one table's delete at most.
 */
export async function removeOlderThanDuckDb(c: DuckDBConnection, cut: RetentionCut): Promise<void> {
  checkCut(cut);
  for (const { table, column } of RETENTION_TABLES) {
    const values: DuckDBValue[] = [cut.cutoffMs];
    const condition = `${q(column)} < $1${projectCondition(cut, values)}`;
    // A kept unit loses the badges of its deleted scores: they are read again once deleted.
    if (table === 'scores') await c.run(badgesBeforeScoreCut(condition), values);
    await c.run(`DELETE FROM ${q(table)} WHERE ${condition}`, values);
  }
  for (const statement of BADGES_BACKFILL) await c.run(statement);
  if (cut.docKinds.length > 0) {
    const values: DuckDBValue[] = [cut.cutoffMs];
    const kinds = cut.docKinds.map((k) => {
      values.push(k);
      return `$${values.length}`;
    });
    await c.run(`DELETE FROM docs WHERE updated_at_ms < $1 AND kind IN (${kinds.join(', ')})${projectCondition(cut, values)}`, values);
  }
  await c.run('CHECKPOINT');
}

/**
 * Bytes per table: DuckDB tells blocks per database, not per table, so the database's used bytes
 * are shared out by each table's estimated size (rows × the estimated width DuckDB reports).
 */
export async function tableBytesDuckDb(c: DuckDBConnection): Promise<Record<string, number>> {
  const size = (await c.runAndReadAll(`SELECT used_blocks * block_size AS used FROM pragma_database_size() WHERE database_name = current_database()`)).getRowObjectsJS();
  const used = Number(size[0]?.used ?? 0);
  const tables = (await c.runAndReadAll(`SELECT table_name, estimated_size, column_count FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary`)).getRowObjectsJS();
  const weights = tables.map((t) => ({ table: t.table_name as string, weight: Number(t.estimated_size) * Number(t.column_count) }));
  const total = weights.reduce((s, w) => s + w.weight, 0);
  const out: Record<string, number> = {};
  for (const w of weights) out[w.table] = total > 0 ? Math.round((used * w.weight) / total) : 0;
  return out;
}
