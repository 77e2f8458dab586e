import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Condition } from './conditions.ts';

// Values are bound ($1, …) or appended, never spliced; the only text in SQL is constant names.
const q = (name: string): string => `"${name}"`;

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
export function whereClause(conditions: readonly Condition[]): { sql: string; values: DuckDBValue[]; bind: (v: DuckDBValue) => string } {
  const values: DuckDBValue[] = [];
  const bind = (v: DuckDBValue): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const sql = conditions.length > 0 ? ` WHERE ${conditions.map((x) => render(x, bind)).join(' AND ')}` : '';
  return { sql, values, bind };
}

export function classify(err: unknown, action: string): Error {
  if (err instanceof PermanentError || err instanceof RetriableError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // One process owns a DuckDB file. Retriable (a restarted `tracecheck up` may find its predecessor
  // still exiting), but say what to do: services run as separate processes on one data dir (the
  // Kafka-mode command without TRACECHECK_CLICKHOUSE_URL) can never share it.
  if (/Could not set lock on file/i.test(message)) {
    const holder = /Conflicting lock is held in (.+?) \(PID (\d+)\)/.exec(message);
    return new RetriableError(
      `duckdb ${action} failed: the DuckDB file is in use by another process${holder ? ` (PID ${holder[2]})` : ''}: ` +
        'one process owns an embedded store, so run the services together (`tracecheck up`), or give separate ' +
        `services a ClickHouse store (TRACECHECK_CLICKHOUSE_URL). DuckDB said: ${message}`,
      { cause: err },
    );
  }
  // DuckDB reports I/O and lock conflicts as such; retrying may help.
  if (/\bIO Error\b|Conflicting lock|Transaction conflict/i.test(message)) {
    return new RetriableError(`duckdb ${action} failed: ${message}`, { cause: err });
  }
  return new PermanentError(`duckdb ${action} failed: ${message}`, { cause: err });
}

export async function inTransaction<T>(c: DuckDBConnection, log: Logger, fn: () => Promise<T>): Promise<T> {
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
