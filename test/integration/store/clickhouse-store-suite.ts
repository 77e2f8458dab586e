import { afterAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { PermanentError, RetriableError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { classifyClickHouseError, createClickHouseStore, type Store } from '../../../shared/adapters/store/index.ts';
import { REQUEST_TIMEOUT_MS, randomDatabaseName } from './clickhouse-test-server.ts';
import { uniqueName } from '../../helpers/infra.ts';
import { describeMonitoringContract } from './monitoring-contract.ts';
import { describeRevisionContract, expectLegacyMigrated } from './revision-contract.ts';
import { describeStoreContract } from './store-contract.ts';
import { describeUnitsBatchContract } from './units-batch-contract.ts';
import { describeReviewContract } from './review-contract.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';
import { expectDedupAcrossPartitions } from './dedup-at-read.ts';

/** A ClickHouse to run the store on: its URL and an admin client, both known once the file's servers are up. */
export interface ClickHouseTarget {
  url(): string;
  admin(): ClickHouseClient;
}

/**
 * The ClickHouse store's whole suite (the store, monitoring and revision contracts, then what only
 * ClickHouse has) on one server: run on 18.16 (clickhouse-store.test.ts) and on the current engine
 * (clickhouse-current-store.test.ts), so both branches of clickhouse-schema.ts are executed.
 */
export function describeClickHouseStoreSuite(label: string, target: ClickHouseTarget): void {
  const database = randomDatabaseName('tc_store');

  afterAll(async () => {
    await target.admin().command({ query: `DROP DATABASE IF EXISTS ${database}` });
  });

  const harness = {
    create: () =>
      Promise.resolve(createClickHouseStore({ url: target.url(), database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })),
    destroy: (store: Store) => store.shutdown(),
  };
  describeStoreContract(label, harness);
  describeMonitoringContract(label, harness);
  describeRevisionContract(label, harness);
  describeReviewContract(label, harness);
  describeUnitsBatchContract(label, harness);

  describe(`clickhouse store specifics: ${label}`, () => {
    it('keeps one row per key after the server merges (ReplacingMergeTree) and before', async () => {
      const store = createClickHouseStore({ url: target.url(), database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
      await store.start();
      const check = uniqueName('merge');
      const first = makeScore({ check, explanation: 'first' });
      const second = { ...first, explanation: 'second' };
      // Background merges would otherwise decide whether the reads below see one part or two.
      await target.admin().command({ query: `SYSTEM STOP MERGES ${database}.scores` });
      await store.writeScores([first]);
      await store.writeScores([second]);
      const raw = async (): Promise<number> => {
        const rs = await target.admin().query({ query: `SELECT count() AS n FROM ${database}.scores WHERE \`check\` = '${check}'`, format: 'JSONEachRow' });
        const rows = await rs.json<{ n: string | number }>();
        return Number(rows[0].n);
      };
      expect(await raw()).toBe(2);
      expect(await store.queryScores({ check })).toEqual([second]);
      await target.admin().command({ query: `SYSTEM START MERGES ${database}.scores` });
      await target.admin().command({ query: `OPTIMIZE TABLE ${database}.scores FINAL` });
      expect(await raw()).toBe(1);
      expect(await store.queryScores({ check })).toEqual([second]);

      // A later revision stays the unit after merges, even when it was assembled earlier (a skewed clock).
      const unit = makeUnit({ model_output: 'old' });
      const earlier = { ...unit, assembled_at_ms: unit.assembled_at_ms - 1, model_output: 'new' };
      expect(await store.writeUnits([unit])).toEqual([{ unit_id: unit.unit_id, revision: 1, fresh: true, latest: true }]);
      expect(await store.writeUnits([earlier])).toEqual([{ unit_id: unit.unit_id, revision: 2, fresh: true, latest: true }]);
      await target.admin().command({ query: `OPTIMIZE TABLE ${database}.units FINAL` });
      expect(await store.getUnit(unit.unit_id)).toEqual(earlier);
      expect((await store.listUnits({ agent: unit.agent_name! })).filter((u) => u.unit_id === unit.unit_id)).toHaveLength(1);
      expect((await store.getUnitRevision(unit.unit_id, undefined, 1))?.unit).toEqual(unit);
      await store.shutdown();
    });

    it('reads the latest revision of a unit whose revisions lie in three parts and partitions, before and after merges', async () => {
      await expectDedupAcrossPartitions(target.url(), target.admin(), database);
    });

    it('skips a stored row that fails the schema instead of returning it', async () => {
      const store = createClickHouseStore({ url: target.url(), database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
      await store.start();
      const check = uniqueName('badrow');
      const good = makeScore({ check });
      await store.writeScores([good]);
      // A row no writer of ours produces: status outside the enum.
      await target.admin().insert({
        table: `${database}.scores`,
        format: 'JSONEachRow',
        values: [{ ...good, unit_id: 'bad-row', status: 'exploded', passed: 1, write_seq: 1 }],
      });
      expect(await store.queryScores({ check })).toEqual([good]);
      await target.admin().insert({ table: `${database}.units`, format: 'JSONEachRow', values: [{ unit_id: 'bad-unit', kind: 'trace', unit_json: '{"not":"a unit"}' }] });
      expect(await store.getUnit('bad-unit')).toBeNull();
      await store.shutdown();
    });

    it('makes what a database from before revisions holds revision 1, with its scores, and revises from there', async () => {
      const legacy = randomDatabaseName('tc_legacy');
      const make = () => createClickHouseStore({ url: target.url(), database: legacy, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
      try {
        const unit = makeUnit();
        const score = makeScore({ unit_id: unit.unit_id });
        const first = make();
        await first.start();
        await first.writeUnits([unit]);
        await first.writeScores([score]);
        await first.shutdown();
        // What an earlier release left: no history tables, no revision columns.
        for (const query of [`DROP TABLE ${legacy}.unit_revisions`, `DROP TABLE ${legacy}.score_revisions`, `ALTER TABLE ${legacy}.units DROP COLUMN revision`, `ALTER TABLE ${legacy}.scores DROP COLUMN unit_revision`]) {
          await target.admin().command({ query });
        }
        const second = make();
        await second.start();
        await expectLegacyMigrated(second, unit, score);
        // A second start copies nothing again.
        await second.migrate();
        await second.shutdown();
        const third = make();
        await third.start();
        expect((await third.listUnitRevisions(unit.unit_id)).map((r) => r.revision)).toEqual([1, 2]);
        await third.shutdown();
      } finally {
        await target.admin().command({ query: `DROP DATABASE IF EXISTS ${legacy}` });
      }
    });

    it('creates the tables that the documented DDL describes', async () => {
      const rs = await target.admin().query({
        query: `SELECT name, engine, sorting_key, partition_key FROM system.tables WHERE database = '${database}' ORDER BY name`,
        format: 'JSONEachRow',
      });
      const tables = await rs.json<Record<string, string>>();
      expect(tables.map((t) => [t.name, t.engine])).toEqual([
        ['docs', 'ReplacingMergeTree'],
        ['score_revisions', 'ReplacingMergeTree'],
        ['scores', 'ReplacingMergeTree'],
        ['unit_revisions', 'ReplacingMergeTree'],
        ['unit_times', 'MergeTree'],
        ['units', 'ReplacingMergeTree'],
      ]);
    });

    it('refuses a database name that is not a plain identifier', () => {
      expect(() => createClickHouseStore({ url: target.url(), database: 'x; DROP DATABASE default', log: createSilentLogger() })).toThrow(PermanentError);
    });

    it('reports a server that does not answer as retriable', async () => {
      // Port 9 (discard) on loopback: nothing listens there on our machines, so the connection is refused.
      const store = createClickHouseStore({ url: 'http://127.0.0.1:9', database, log: createSilentLogger(), requestTimeoutMs: 2_000 });
      await expect(store.migrate()).rejects.toBeInstanceOf(RetriableError);
      await store.shutdown();
    });

    it('classifies real server errors from this ClickHouse', async () => {
      const failure = async (query: string): Promise<unknown> => {
        try {
          await target.admin().query({ query, format: 'JSONEachRow' });
        } catch (err) {
          return classifyClickHouseError(err, 'test');
        }
        throw new Error('query unexpectedly succeeded');
      };
      expect(await failure('SELEC 1')).toBeInstanceOf(PermanentError);
      expect(await failure("SELECT 1 + 'a'")).toBeInstanceOf(PermanentError);
      expect(await failure(`SELECT nope FROM ${database}.scores`)).toBeInstanceOf(PermanentError);
      const syntax = await failure('SELEC 1');
      expect((syntax as Error).cause).toBeInstanceOf(Error);
    });

    it('reports an authentication failure as permanent', async () => {
      const store = createClickHouseStore({ url: target.url(), database: `${database}_missing_user`, user: 'no_such_user_x', log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
      await expect(store.getUnit('x')).rejects.toBeInstanceOf(PermanentError);
      await store.shutdown();
    });
  });
}
