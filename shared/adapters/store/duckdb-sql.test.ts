import { describe, expect, it } from 'vitest';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import { classify } from './duckdb-sql.ts';

describe('classify (DuckDB errors)', () => {
  it('names the process holding the file and what to do instead, and keeps it retriable', () => {
    const err = classify(new Error('IO Error: Could not set lock on file "/d/tracecheck.duckdb": Conflicting lock is held in /usr/bin/node (PID 16274). See also https://duckdb.org/docs/stable/connect/concurrency'), 'migrate');
    expect(err).toBeInstanceOf(RetriableError);
    expect(err.message).toBe(
      'duckdb migrate failed: the DuckDB file is in use by another process (PID 16274): one process owns an embedded store, so run the services together (`tracecheck up`), or give separate services a ClickHouse store (TRACECHECK_CLICKHOUSE_URL). DuckDB said: IO Error: Could not set lock on file "/d/tracecheck.duckdb": Conflicting lock is held in /usr/bin/node (PID 16274). See also https://duckdb.org/docs/stable/connect/concurrency',
    );
  });

  it('keeps other I/O errors retriable and a bad statement permanent', () => {
    expect(classify(new Error('IO Error: No space left on device'), 'insert')).toBeInstanceOf(RetriableError);
    const bad = classify(new Error('Parser Error: syntax error at or near "SELCT"'), 'query');
    expect(bad).toBeInstanceOf(PermanentError);
    expect(bad.message).toBe('duckdb query failed: Parser Error: syntax error at or near "SELCT"');
  });
});
