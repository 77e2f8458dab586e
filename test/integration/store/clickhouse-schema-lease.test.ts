import { afterAll } from 'vitest';
import { CLICKHOUSE_URL, createAdminClient } from './clickhouse-test-server.ts';
import { describeSchemaLease } from './schema-lease-suite.ts';

// The schema lease on the ClickHouse 18.16 server that scripts/infra.sh starts.
const admin = createAdminClient();
afterAll(() => admin.close());
describeSchemaLease('ClickHouse 18.16', () => CLICKHOUSE_URL, () => admin);
