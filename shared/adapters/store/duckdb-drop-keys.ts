import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from '../../runtime/logging/index.ts';
import { inTransaction } from './duckdb-sql.ts';

/**
 * Rebuilds the tables of a file written with primary keys (before they were dropped, see
 * duckdb-schema.ts) without them: renamed aside, created again from `ddl` (its CREATE TABLE IF NOT
 * EXISTS, every column of the current version), filled by column name, the old one dropped, each
 * table in one transaction. A file already without keys costs one catalog query. Runs at start,
 * within the store's one connection (DuckDB lets one process hold a file).
 */
export async function dropPrimaryKeys(c: DuckDBConnection, log: Logger, ddl: Readonly<Record<string, string>>): Promise<void> {
  const names = Object.keys(ddl);
  const keyed = (
    await c.runAndReadAll(
      `SELECT DISTINCT table_name FROM duckdb_constraints() WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE') AND schema_name = 'main' AND table_name IN (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      names,
    )
  )
    .getRowObjectsJS()
    .map((r) => (typeof r.table_name === 'string' ? r.table_name : ''));
  for (const table of keyed) {
    const started = Date.now();
    const aside = `${table}_with_key`;
    await inTransaction(c, log, async () => {
      await c.run(`DROP TABLE IF EXISTS ${aside}`);
      await c.run(`ALTER TABLE ${table} RENAME TO ${aside}`);
      await c.run(ddl[table]);
      await c.run(`INSERT INTO ${table} BY NAME SELECT * FROM ${aside}`);
      await c.run(`DROP TABLE ${aside}`);
    });
    log.info({ table, ms: Date.now() - started }, 'duckdb table rebuilt without its primary key');
  }
  if (keyed.length > 0) await c.run('CHECKPOINT');
}
