import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { queryCompare, querySeries, querySummary } from '../../../services/api/src/monitoring-queries.ts';
import { startChdbServer, type ChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// The monitoring answers (series, summary, compare, and the store reads under them) from ClickHouse
// 18.16, the current engine (26.7 via chdb) and DuckDB on the same rows must be the same answers:
// a user who moves between stores or upgrades ClickHouse sees the same numbers.

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 10, 0, 0, 0);
const PROJECT = 'parity';
const AGENTS = [
  ['support-bot', 'v1'],
  ['support-bot', 'v2'],
  ['billing-bot', 'v1'],
] as const;

/** Deterministic rows: 36 units over 6 hours, three checks (verdicts, values only, errors and not-runs), some revised. */
function seedRows(): { unit: Unit; scores: Score[] }[][] {
  const first: { unit: Unit; scores: Score[] }[] = [];
  const revised: { unit: Unit; scores: Score[] }[] = [];
  for (let i = 0; i < 36; i++) {
    const [agent, version] = AGENTS[i % AGENTS.length];
    const end = START + Math.floor((i * 6 * HOUR) / 36) + 1_000;
    const unit = makeUnit({ unit_id: `parity-${i}`, project: PROJECT, agent_name: agent, agent_version: version, environment: i % 4 === 0 ? 'staging' : 'prod', start_time_ms: end - 2_000, end_time_ms: end, assembled_at_ms: end + 500 });
    const common = { unit_id: unit.unit_id, project: PROJECT, agent_name: agent, agent_version: version, environment: unit.environment, unit_end_time_ms: end, unit_revision: undefined };
    // Values are binary fractions, so every engine's sums are exact whatever order it adds in.
    const verdict = makeScore({ ...common, check: 'verdict', passed: (i * 7) % 5 !== 0, value: null, created_at_ms: end + 1_000 + i });
    const graded = makeScore({ ...common, check: 'graded', passed: null, value: [0, 0.25, 0.5, 0.75, 1][(i * 3) % 5] ?? 0, created_at_ms: end + 2_000 });
    const status = i % 9 === 0 ? 'error' : i % 11 === 0 ? 'not_run' : 'ok';
    const shaky = makeScore({ ...common, check: 'shaky', status, passed: status === 'ok' ? i % 2 === 0 : null, value: status === 'ok' ? 0.5 : null, error: status === 'error' ? 'judge timed out' : null, created_at_ms: end + 3_000 });
    first.push({ unit, scores: [verdict, graded, shaky] });
    if (i % 5 === 2) {
      // A later revision: the session grew (a later end) and the verdict flipped.
      const later = { ...unit, end_time_ms: end + 40 * 60_000, assembled_at_ms: end + 41 * 60_000, model_output: `revised ${i}` };
      const revisedCommon = { ...common, unit_end_time_ms: later.end_time_ms };
      revised.push({
        unit: later,
        scores: [
          makeScore({ ...revisedCommon, check: 'verdict', passed: !verdict.passed, value: null, created_at_ms: later.assembled_at_ms + 1_000 }),
          makeScore({ ...revisedCommon, check: 'graded', passed: null, value: 0.125, created_at_ms: later.assembled_at_ms + 2_000 }),
        ],
      });
    }
  }
  return [first, revised];
}

interface Target {
  label: string;
  store: Store;
}

const targets: Target[] = [];
let chdb: ChdbServer | undefined;
const admin = createAdminClient();
let currentAdmin: ClickHouseClient | undefined;
const oldDb = randomDatabaseName('tc_parity');
const currentDb = randomDatabaseName('tc_parity');

beforeAll(async () => {
  chdb = await startChdbServer();
  currentAdmin = createClient({ url: chdb.url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  const log = createSilentLogger();
  targets.push(
    { label: 'clickhouse 18.16', store: createClickHouseStore({ url: CLICKHOUSE_URL, database: oldDb, log, requestTimeoutMs: REQUEST_TIMEOUT_MS }) },
    { label: 'clickhouse 26.7 (chdb)', store: createClickHouseStore({ url: chdb.url, database: currentDb, log, requestTimeoutMs: REQUEST_TIMEOUT_MS }) },
    { label: 'duckdb', store: createDuckDbStore({ path: ':memory:', log }) },
  );
  const batches = seedRows();
  for (const t of targets) {
    await t.store.start();
    // One batch per write, as the scorer writes: the revisions land in parts of their own.
    for (const batch of batches) for (const scored of batch) await t.store.writeScoredUnits([scored]);
  }
});

afterAll(async () => {
  for (const t of targets) await t.store.shutdown();
  await admin.command({ query: `DROP DATABASE IF EXISTS ${oldDb}` });
  await admin.close();
  await currentAdmin?.close();
  await chdb?.stop();
});

/** The same question to the three stores: one answer, and it is not empty. */
async function sameAnswer(ask: (store: Store) => Promise<unknown>): Promise<unknown> {
  const answers = await Promise.all(targets.map(async (t) => ({ label: t.label, answer: await ask(t.store) })));
  for (const a of answers.slice(1)) expect({ label: a.label, answer: a.answer }).toEqual({ label: a.label, answer: answers[0].answer });
  return answers[0].answer;
}

describe('monitoring answers on ClickHouse 18.16, ClickHouse 26.7 and DuckDB', () => {
  it('answer series the same (per hour and per 5 minutes, with and without filters)', async () => {
    const series = await sameAnswer((s) => querySeries(s, START + 7 * HOUR, { project: PROJECT, check: 'verdict', bucket: '1h', from: START, to: START + 7 * HOUR, filters: {} }));
    expect(series).toMatchObject({ ok: true });
    await sameAnswer((s) => querySeries(s, START + 7 * HOUR, { project: PROJECT, check: 'graded', bucket: '5m', from: START, to: START + 7 * HOUR, filters: { agent: 'support-bot' } }));
    await sameAnswer((s) => querySeries(s, START + 7 * HOUR, { project: PROJECT, check: 'shaky', bucket: '1h', from: START, to: START + 7 * HOUR, filters: { environment: 'prod', agentVersion: 'v1' } }));
  });

  it('answer the summary the same, this window against the previous', async () => {
    const summary = (await sameAnswer((s) => querySummary(s, START + 7 * HOUR, { project: PROJECT, from: START + 3 * HOUR, to: START + 7 * HOUR, filters: {} }))) as { ok: true; value: { checks: { check: string }[] } };
    expect(summary.value.checks.map((c) => c.check)).toEqual(['graded', 'shaky', 'verdict']);
    await sameAnswer((s) => querySummary(s, START + 7 * HOUR, { project: PROJECT, from: START + 2 * HOUR, to: START + 4 * HOUR, filters: { agent: 'billing-bot' } }));
  });

  it('answer compare the same (verdicts, value-only checks with their rank counts, failing units)', async () => {
    const compare = (await sameAnswer((s) => queryCompare(s, { project: PROJECT, a: { agent_version: 'v1' }, b: { agent_version: 'v2' }, alpha: 0.05 }))) as { ok: true; value: { comparisons: unknown[] } };
    expect(compare.value.comparisons).toHaveLength(3);
    await sameAnswer((s) => queryCompare(s, { project: PROJECT, a: { agent: 'support-bot' }, b: { agent: 'billing-bot' }, alpha: 0.01, check: 'graded', from: START, to: START + 5 * HOUR }));
  });

  it('answer the store reads under them the same: aggregates split by agent, value counts, failing scores, units', async () => {
    await sameAnswer((s) => s.aggregateScores({ project: PROJECT, splitByAgent: true, bucketMs: HOUR }));
    await sameAnswer((s) => s.valueCounts({ project: PROJECT }));
    const failing = (await sameAnswer((s) => s.queryScores({ project: PROJECT, status: 'ok', passed: false, limit: 100 }))) as Score[];
    expect(failing.length).toBeGreaterThan(0);
    await sameAnswer((s) => s.queryScores({ project: PROJECT, endFromMs: START + HOUR, endToMs: START + 3 * HOUR, limit: 500 }));
    await sameAnswer((s) => s.listUnits({ project: PROJECT, fromMs: START, toMs: START + 4 * HOUR }));
  });
});
