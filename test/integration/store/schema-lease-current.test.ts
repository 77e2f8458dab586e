import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll } from 'vitest';
import { startChdbServer, type ChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';
import { REQUEST_TIMEOUT_MS } from './clickhouse-test-server.ts';
import { describeSchemaLease } from './schema-lease-suite.ts';

// The schema lease on the current ClickHouse engine (26.7 via chdb): its Log table, now() arithmetic
// and RENAME under the lease. The front serves one query at a time, so the races here are milder than on a server.
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
describeSchemaLease('ClickHouse 26.7 (chdb)', () => server!.url, () => admin!);
