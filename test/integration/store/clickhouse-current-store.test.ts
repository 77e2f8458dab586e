import { createClient, ClickHouseLogLevel } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { startChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';
import { useChdbServer } from '../../helpers/chdb-server/use-chdb-server.ts';
import { REQUEST_TIMEOUT_MS } from './clickhouse-test-server.ts';
import { describeClickHouseStoreSuite } from './clickhouse-store-suite.ts';
import { expectDedupAcrossPartitions } from './dedup-at-read.ts';
import { randomDatabaseName } from './clickhouse-test-server.ts';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { SUPPORTED_CLICKHOUSE } from '../../../shared/adapters/store/clickhouse-versions.ts';
import { createClickHouseStore } from '../../../shared/adapters/store/index.ts';

// The store's suite on the current ClickHouse engine (npm chdb, 26.7) through its HTTP front: the
// store's real client, SQL and the schema's modern branch (LowCardinality, TTL) on what users run.
const chdb = useChdbServer();

describeClickHouseStoreSuite('clickhouse 26.7 (chdb)', {
  url: chdb.url,
  admin: chdb.admin,
});

describe('the current engine specifics', () => {
  it('takes the modern branch of the schema: LowCardinality columns and a TTL', async () => {
    const database = randomDatabaseName('tc_modern');
    const store = createClickHouseStore({ url: chdb.url(), database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS, ttlDays: 30 });
    await store.start();
    const rs = await chdb.admin().query({
      query: `SELECT name, type FROM system.columns WHERE database = '${database}' AND table = 'scores' AND name IN ('check', 'judge_model', 'unit_id') ORDER BY name`,
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([
      { name: 'check', type: 'LowCardinality(String)' },
      { name: 'judge_model', type: 'LowCardinality(Nullable(String))' },
      { name: 'unit_id', type: 'String' },
    ]);
    const ddl = await (await chdb.admin().query({ query: `SELECT engine_full FROM system.tables WHERE database = '${database}' AND name = 'scores'`, format: 'JSONEachRow' })).json<{ engine_full: string }>();
    expect(ddl[0].engine_full).toContain('TTL created_at + toIntervalDay(30)');
    await store.shutdown();
    await chdb.admin().command({ query: `DROP DATABASE ${database}` });
  });

  it('keeps dedup-at-read right on a server whose profile merges FINAL per partition and moves filters to PREWHERE', async () => {
    // What a user's default profile may set; the store pins both off for its reads.
    const profiled = await startChdbServer({ profile: { do_not_merge_across_partitions_select_final: 1, optimize_move_to_prewhere_if_final: 1 } });
    const client = createClient({ url: profiled.url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
    try {
      expect(await (await client.query({ query: "SELECT value FROM system.settings WHERE name = 'do_not_merge_across_partitions_select_final'", format: 'JSONEachRow' })).json()).toEqual([{ value: '1' }]);
      await expectDedupAcrossPartitions(profiled.url, client, randomDatabaseName('tc_profiled'));
    } finally {
      await client.close();
      await profiled.stop();
    }
  });

  it('refuses to start on a server of a version it does not support, naming the supported ones', async () => {
    // A server that answers every query as a 19.17 server answers SELECT version().
    const old = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/x-ndjson' }).end('{"v":"19.17.4.11"}\n'));
    old.listen(0, '127.0.0.1');
    await once(old, 'listening');
    const store = createClickHouseStore({ url: `http://127.0.0.1:${(old.address() as AddressInfo).port}`, database: 'tc_refused', log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      const failure = await store.start().then(() => null, (err: unknown) => err);
      expect(failure).toBeInstanceOf(PermanentError);
      expect((failure as Error).message).toBe(`ClickHouse "19.17.4.11" is not supported; the store runs on ${SUPPORTED_CLICKHOUSE}`);
    } finally {
      await store.shutdown();
      old.close();
    }
  });
});
