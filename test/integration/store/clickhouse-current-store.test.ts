import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll } from 'vitest';
import { startChdbServer, type ChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';
import { REQUEST_TIMEOUT_MS } from './clickhouse-test-server.ts';
import { describeClickHouseStoreSuite } from './clickhouse-store-suite.ts';

// The store's suite on the current ClickHouse engine (npm chdb, 26.7) through its HTTP front: the
// store's real client, SQL and the schema's modern branch (LowCardinality, TTL) on what users run.
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

describeClickHouseStoreSuite('clickhouse 26.7 (chdb)', {
  url: () => server!.url,
  admin: () => admin!,
});
