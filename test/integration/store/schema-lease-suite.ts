import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { RetriableError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseConnection } from '../../../shared/adapters/store/clickhouse-connection.ts';
import { LEASE_TABLE, withSchemaLease } from '../../../shared/adapters/store/clickhouse-lease.ts';
import { createClickHouseStore, type Store } from '../../../shared/adapters/store/index.ts';
import { REQUEST_TIMEOUT_MS, randomDatabaseName } from './clickhouse-test-server.ts';
import { expectLegacyMigrated } from './revision-contract.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// Every service migrates the schema at its start; started together they must not race (issue 22:
// "Table <db>.score_revisions_migrating doesn't exist" killed a collector on a new database).

/** The lease cases on the ClickHouse at `url()`, administered through `admin()` (both known once the file's servers are up). */
export function describeSchemaLease(label: string, url: () => string, admin: () => ClickHouseClient): void {
  const SCHEMA = ['docs', 'score_revisions', 'scores', 'unit_revisions', 'unit_times', 'units'];
  const databases: string[] = [];
  const log = createSilentLogger();
  afterAll(async () => {
    for (const db of databases) await admin().command({ query: `DROP DATABASE IF EXISTS ${db}` });
  });

  function freshDatabase(prefix: string): string {
    const db = randomDatabaseName(prefix);
    databases.push(db);
    return db;
  }

  const makeStore = (database: string): Store => createClickHouseStore({ url: url(), database, log, requestTimeoutMs: REQUEST_TIMEOUT_MS });

  async function tablesOf(database: string): Promise<string[]> {
    const rs = await admin().query({ query: `SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`, format: 'JSONEachRow' });
    return (await rs.json<{ name: string }>()).map((r) => r.name);
  }

  describe(`clickhouse schema lease: ${label}`, () => {
    it('lets eight stores started at once on a new database migrate one after another: one schema, no lease left', async () => {
      const database = freshDatabase('tc_lease_fresh');
      const stores = Array.from({ length: 8 }, () => makeStore(database));
      const results = await Promise.allSettled(stores.map((s) => s.start()));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill('fulfilled'));
      expect(await tablesOf(database)).toEqual(SCHEMA);
      const unit = makeUnit();
      expect(await stores[3].writeUnits([unit])).toEqual([{ unit_id: unit.unit_id, revision: 1, fresh: true, latest: true }]);
      for (const s of stores) await s.shutdown();
    });

    it('migrates a database from before revisions once when eight stores start on it at once', async () => {
      const database = freshDatabase('tc_lease_legacy');
      const unit = makeUnit();
      const score = makeScore({ unit_id: unit.unit_id });
      const first = makeStore(database);
      await first.start();
      await first.writeUnits([unit]);
      await first.writeScores([score]);
      await first.shutdown();
      for (const query of [`DROP TABLE ${database}.unit_revisions`, `DROP TABLE ${database}.score_revisions`, `ALTER TABLE ${database}.units DROP COLUMN revision`, `ALTER TABLE ${database}.scores DROP COLUMN unit_revision`]) {
        await admin().command({ query });
      }
      const stores = Array.from({ length: 8 }, () => makeStore(database));
      const results = await Promise.allSettled(stores.map((s) => s.start()));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill('fulfilled'));
      expect(await tablesOf(database)).toEqual(SCHEMA);
      await expectLegacyMigrated(stores[5], unit, score);
      for (const s of stores) await s.shutdown();
    });

    it('breaks a lease its holder stopped renewing and migrates', async () => {
      const database = freshDatabase('tc_lease_stale');
      await admin().command({ query: `CREATE DATABASE ${database}` });
      // What a process killed while migrating leaves: a lease that expired.
      await admin().command({ query: `CREATE TABLE ${database}.${LEASE_TABLE} ENGINE = Log AS SELECT 'dead-host:1:x' AS owner, now() - 1 AS expires_at` });
      const store = makeStore(database);
      await store.start();
      expect(await tablesOf(database)).toEqual(SCHEMA);
      await store.shutdown();
    });

    it('waits for a live lease, and gives up with a retriable error after its timeout', async () => {
      const database = freshDatabase('tc_lease_live');
      await admin().command({ query: `CREATE DATABASE ${database}` });
      const connection = createClickHouseConnection({ url: url(), database, log, requestTimeoutMs: REQUEST_TIMEOUT_MS });
      const order: string[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holder = withSchemaLease({ connection, log }, async () => {
        order.push('holder in');
        await held;
        order.push('holder out');
      });
      while (!order.includes('holder in')) await new Promise((r) => setTimeout(r, 20));
      await expect(withSchemaLease({ connection, log, acquireTimeoutMs: 300, pollMs: 50 }, () => Promise.resolve())).rejects.toBeInstanceOf(RetriableError);
      const waiter = withSchemaLease({ connection, log, pollMs: 50 }, () => Promise.resolve(void order.push('waiter in')));
      await new Promise((r) => setTimeout(r, 300));
      release();
      await Promise.all([holder, waiter]);
      expect(order).toEqual(['holder in', 'holder out', 'waiter in']);
      expect(await tablesOf(database)).toEqual([]);
      await connection.close();
    });
  });
}
