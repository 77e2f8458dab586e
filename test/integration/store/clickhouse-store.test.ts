import { afterAll } from 'vitest';
import { CLICKHOUSE_URL, createAdminClient } from './clickhouse-test-server.ts';
import { describeClickHouseStoreSuite } from './clickhouse-store-suite.ts';

// The store's suite on the ClickHouse 18.16 server that scripts/infra.sh starts (the portable branch
// of the schema); clickhouse-current-store.test.ts runs the same suite on the current engine.
const admin = createAdminClient();
afterAll(() => admin.close());

describeClickHouseStoreSuite('clickhouse', { url: () => CLICKHOUSE_URL, admin: () => admin });
