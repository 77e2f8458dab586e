import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../integration/store/clickhouse-test-server.ts';
import { startChdbServer, type ChdbServer } from './start-chdb-server.ts';

/**
 * One chdb HTTP front (the current ClickHouse engine) for a test file, started before its tests and
 * stopped after, with an admin client: `url()` and `admin()` are valid inside tests and hooks.
 */
export function useChdbServer(): { url: () => string; admin: () => ClickHouseClient } {
  let server: ChdbServer | undefined;
  let admin: ClickHouseClient | undefined;
  beforeAll(async () => {
    server = await startChdbServer();
    admin = createClient({ url: server.url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  });
  afterAll(async () => {
    await admin?.close();
    await server?.stop();
  });
  return { url: () => server!.url, admin: () => admin! };
}
