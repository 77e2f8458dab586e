import { describe, expect, it } from 'vitest';
import { storeFailure } from './store-command.ts';

describe('storeFailure', () => {
  const lock = new Error('IO Error: Could not set lock on file "/d/tracecheck.duckdb": Conflicting lock is held in /usr/bin/node (PID 4242)');

  it("names the process holding the DuckDB file and what to do, in embedded mode only", () => {
    expect(storeFailure(lock, true)).toBe(
      `${lock.message}\nanother process holds the DuckDB file: a running tracecheck up started before this version? Stop it (Ctrl-C) and start it again; commands then go through its API while it runs`,
    );
    expect(storeFailure(lock, false)).toBe(lock.message);
    expect(storeFailure(new Error('connect ECONNREFUSED'), true)).toBe('connect ECONNREFUSED');
  });
});
