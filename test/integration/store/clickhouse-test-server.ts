import { randomUUID } from 'node:crypto';
import { createClient, type ClickHouseClient } from '@clickhouse/client';

// Where the test ClickHouse listens (scripts/infra.sh starts it). Bounded timeouts: a server that is
// down fails the suite quickly instead of hanging it.
export const CLICKHOUSE_URL = process.env.TRACECHECK_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
export const REQUEST_TIMEOUT_MS = 15_000;

/** A database name of our own per test file. */
export function randomDatabaseName(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

export function createAdminClient(): ClickHouseClient {
  return createClient({ url: CLICKHOUSE_URL, request_timeout: REQUEST_TIMEOUT_MS });
}
