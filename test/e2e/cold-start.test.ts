import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../helpers/infra.ts';
import { dropDatabase, report } from '../helpers/score-counts.ts';
import { startService, type ServiceProcess } from '../helpers/service-processes.ts';

// Issue 22, "starts that cannot collide": the four services of the README's Kafka-mode command
// (`collector & assembler & scorer & api`), each a process, started at the same moment on a new
// ClickHouse database, every round. Defaults throughout, except what must be unique to this test on
// a shared machine: the database, the topic prefix and the ports (the default ports' separation is
// cli/start-failure.test.ts's). Every service migrates the schema at its start: they must not race.

const ROUNDS = 20;
const SERVICES = ['collector', 'assembler', 'scorer', 'api'] as const;
const SCHEMA = ['docs', 'score_revisions', 'scores', 'unit_revisions', 'unit_times', 'units'];

async function tablesOf(database: string): Promise<string[]> {
  const client = createClient({ url: testClickHouseUrl() });
  try {
    const rs = await client.query({ query: `SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`, format: 'JSONEachRow' });
    return (await rs.json<{ name: string }>()).map((r) => r.name);
  } finally {
    await client.close();
  }
}

describe('cold starts of all four services at once (Kafka + ClickHouse, one process per service)', () => {
  const running: ServiceProcess[] = [];
  const databases: string[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) await s.kill();
    for (const db of databases.splice(0)) await dropDatabase(testClickHouseUrl(), db);
  });

  it(`starts collector, assembler, scorer and api together on a new database ${ROUNDS} times: no crash, one schema, every service serving`, { timeout: 900_000 }, async () => {
    const startMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const database = uniqueName('coldstart');
      databases.push(database);
      const env = {
        TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','),
        TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(),
        TRACECHECK_CLICKHOUSE_DATABASE: database,
        TRACECHECK_KAFKA_PREFIX: uniqueName('coldstart'),
      };
      const t0 = Date.now();
      const started = await Promise.allSettled(SERVICES.map((name) => startService(name, env, { readyTimeoutMs: 150_000 })));
      startMs.push(Date.now() - t0);
      for (const s of started) if (s.status === 'fulfilled') running.push(s.value);
      const failures = started.flatMap((s, i) => (s.status === 'rejected' ? [`${SERVICES[i]}: ${String(s.reason)}`] : []));
      expect(failures, `round ${round}`).toEqual([]);

      // Still up and serving once all are, with the one schema and nothing logged as an error.
      for (const s of running) expect((await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(5_000) })).status, `round ${round}: ${s.name}`).toBe(200);
      expect(await tablesOf(database), `round ${round}`).toEqual(SCHEMA);
      const errors = running.flatMap((s) => s.logRecords().filter((r) => Number(r.level) >= 50).map((r) => `${s.name}: ${String(r.msg)}${r.error === undefined ? '' : ` (${JSON.stringify(r.error)})`}`));
      // Joined: an assertion on the array would print only `[ Array(1) ]`, not which service said what.
      expect(errors.join('\n'), `round ${round}`).toBe('');

      for (const s of running.splice(0)) await s.stop();
      await dropDatabase(testClickHouseUrl(), database);
      databases.splice(databases.indexOf(database), 1);
    }
    report('cold starts', { rounds: ROUNDS, services: SERVICES.length, secondsUntilAllServing: startMs.map((ms) => Math.round(ms / 100) / 10) });
  });
});
