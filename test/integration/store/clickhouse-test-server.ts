import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { testClickHouseUrl, uniqueName } from '../../helpers/infra.ts';

// The test ClickHouse that scripts/infra.sh starts (see test/helpers/infra.ts). Bounded timeouts: a server that is
// down fails the suite quickly instead of hanging it.
export const CLICKHOUSE_URL = testClickHouseUrl();
export const REQUEST_TIMEOUT_MS = 15_000;

/** A database name of our own per test file. */
export function randomDatabaseName(prefix: string): string {
  return uniqueName(prefix);
}

export function createAdminClient(): ClickHouseClient {
  // Silent: some tests provoke server errors on purpose and assert on them.
  return createClient({ url: CLICKHOUSE_URL, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
}
