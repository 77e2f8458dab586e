import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll } from 'vitest';
import { startChdbServer, type ChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';
import { REQUEST_TIMEOUT_MS } from './clickhouse-test-server.ts';
import { describeQuotingOn } from './sql-quote-suite.ts';

// The quoting module on the current ClickHouse engine (26.7 via chdb): 18.16 has no query parameters,
// so every value reaches SQL quoted, and current servers must read those literals the same way.
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
describeQuotingOn('ClickHouse 26.7 (chdb)', () => admin!);
