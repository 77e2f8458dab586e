import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPipeline } from '../../../cli/pipeline.ts';
import { checkAgreement, putCheckTry } from '../../../shared/engines/review/index.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { startAll } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { testClickHouseUrl, uniqueName, waitFor } from '../../helpers/infra.ts';
import { dropDatabase } from '../../helpers/score-counts.ts';
import { clickHouseText, duckDbText } from '../../e2e/redaction-search.ts';
import { makeScore, makeUnit } from './store-fixtures.ts';

// Issue 35.4/35.5: retention removes every copy of unit content, not only units and scores. One
// unit's text (MARKER) is copied, through the API `tracecheck up` runs, into every document kind
// that holds unit content — a dataset version, a review's expected output, a simulation dialog —
// and into a check-try record and an alert event as a judge's explanation quoting it. With the
// retention clock moved past the deployment's 1 day, one pass leaves MARKER nowhere in the store,
// while a unit assembled after the cutoff (KEEP) stays.

const DAY = 24 * 60 * 60 * 1000;
const MARKER = 'MARKER-7f3e-unit-text';
const KEEP = 'KEEP-91ac-unit-text';
const CHECK = 'answer_relevance';

interface Mode {
  name: string;
  env(): Record<string, string>;
  text(dataDir: string, env: Record<string, string>): Promise<string>;
  /** ClickHouse removes rows in background mutations: a bounded wait for them. */
  settles: boolean;
  cleanUp(env: Record<string, string>): Promise<void>;
}

const MODES: Mode[] = [
  { name: 'DuckDB', env: () => ({}), text: async (dataDir) => (await duckDbText(join(dataDir, 'tracecheck.duckdb'))).text, settles: false, cleanUp: () => Promise.resolve() },
  {
    name: 'ClickHouse 18.16',
    env: () => ({ TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('retention_content') }),
    text: async (_dataDir, env) => (await clickHouseText(testClickHouseUrl(), env.TRACECHECK_CLICKHOUSE_DATABASE)).text,
    settles: true,
    cleanUp: (env) => dropDatabase(testClickHouseUrl(), env.TRACECHECK_CLICKHOUSE_DATABASE),
  },
];

for (const mode of MODES) {
  describe(`retention of unit content: ${mode.name}`, () => {
    it('removes every document kind that carries unit content, keeps what is newer than the cutoff', async () => {
      const env = mode.env();
      const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-retention-content-'));
      const log = createSilentLogger();
      const start = Date.now();
      let clock = start;
      const config = loadConfig({ TRACECHECK_DATA_DIR: dataDir, TRACECHECK_API_PORT: '0', TRACECHECK_RETENTION_DAYS: '1', ...env });
      const pipeline = buildPipeline(config, log, new Set(['api'] as const), { retentionNow: () => clock });
      const stop = await startAll(pipeline.components, log);
      let stopped = false;
      try {
        const store = pipeline.store!;
        const api = async (method: string, path: string, body: unknown): Promise<number> =>
          (await fetch(`${pipeline.apiUrl()}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).status;
        const old = makeUnit({ assembled_at_ms: start, start_time_ms: start - 5_000, end_time_ms: start - 1_000, model_output: `${MARKER} output`, message_history: [{ role: 'user', content: `${MARKER} question` }] });
        // Assembled after the cutoff the pass below uses (clock - 1 day).
        const fresh = makeUnit({ assembled_at_ms: start + 3 * DAY, start_time_ms: start, end_time_ms: start + 1, model_output: `${KEEP} output`, message_history: [{ role: 'user', content: `${KEEP} question` }] });
        await store.writeScoredUnits([
          { unit: old, scores: [makeScore({ unit_id: old.unit_id, check: CHECK, created_at_ms: start, unit_end_time_ms: start - 1_000, explanation: `quotes ${MARKER}` })] },
          { unit: fresh, scores: [makeScore({ unit_id: fresh.unit_id, check: CHECK, created_at_ms: start + 3 * DAY, unit_end_time_ms: start + 1, explanation: `quotes ${KEEP}` })] },
        ]);
        expect(await api('POST', '/api/v1/reviews', { unit_id: old.unit_id, check: CHECK, agrees: false, expected: `${MARKER} expected`, note: `${MARKER} note` })).toBe(201);
        expect(await api('POST', '/api/v1/datasets', { name: 'golden', unit_ids: [old.unit_id] })).toBe(201);
        expect(await api('POST', '/api/v1/simulations/sim-1', { messages: [{ role: 'user', content: `${MARKER} simulated` }] })).toBe(201);
        await putCheckTry(store, {
          check: CHECK, project: 'default', new_version: 'v2', current: checkAgreement(CHECK, []), candidate: checkAgreement(CHECK, []), units: 1, new_agrees: { successes: 0, total: 1 },
          differ: [{ unit_id: old.unit_id, human: false, current_passed: true, current_value: 1, new_passed: true, new_value: 1, new_explanation: `quotes ${MARKER}` }], not_scored: [], created_at_ms: start,
        });
        await store.putDoc({ kind: 'alert_event', project: 'default', id: 'e-1', body: { explanation: `quotes ${MARKER}` }, updated_at_ms: start });
        const before = await mode.text(dataDir, env);
        // Every kind holds it before the pass (the test is not vacuous).
        for (const kind of ['"kind":"dataset"', '"kind":"review"', '"kind":"simulation"', '"kind":"check_try"', '"kind":"alert_event"']) expect(before).toContain(kind);
        expect(before.split(MARKER).length - 1).toBeGreaterThanOrEqual(9);

        clock = start + 2 * DAY;
        await pipeline.retention!.runOnce();
        if (mode.settles) await waitFor(async () => !(await mode.text(dataDir, env)).includes(MARKER), { timeoutMs: 120_000, intervalMs: 500, description: 'the retention mutations' });
        await stop();
        stopped = true;
        const after = await mode.text(dataDir, env);
        expect(after.includes(MARKER) ? after.slice(Math.max(0, after.indexOf(MARKER) - 300), after.indexOf(MARKER) + 100) : '').toBe('');
        expect(after).toContain(`${KEEP} output`);
        expect(after).toContain(`quotes ${KEEP}`);
      } finally {
        if (!stopped) await stop();
        await mode.cleanUp(env);
      }
    }, 180_000);
  });
}
