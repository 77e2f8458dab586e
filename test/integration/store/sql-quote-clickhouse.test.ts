import { afterAll } from 'vitest';
import { createAdminClient } from './clickhouse-test-server.ts';
import { describeQuotingOn } from './sql-quote-suite.ts';

// The quoting module on the ClickHouse 18.16 server that scripts/infra.sh starts.
const admin = createAdminClient();
afterAll(() => admin.close());
describeQuotingOn('ClickHouse 18.16', () => admin);
