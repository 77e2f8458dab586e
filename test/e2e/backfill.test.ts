import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backfill } from '../../cli/commands/backfill.ts';
import { createStore } from '../../cli/compose.ts';
import { createModelServer, type ModelServer } from '../../tools/model-server/src/index.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import type { Score } from '../../shared/contracts/schemas/index.ts';
import { testClickHouseUrl, uniqueName } from '../helpers/infra.ts';
import { createTestUnit } from '../helpers/unit-factory.ts';
import { captureIo } from '../helpers/cli.ts';

// `tracecheck backfill` over 10,000 stored units, in both stores: a user check gets a new
// version, the backfill of it is interrupted after a few pages and run again with the same
// arguments; it resumes from its saved position and ends with exactly one score per unit for the
// new version (the rows written twice around the interruption are replaced, not added).

const MODES = [
  { name: 'DuckDB', env: (): Record<string, string> => ({ TRACECHECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'tracecheck-backfill-')) }) },
  { name: 'ClickHouse', env: (): Record<string, string> => ({ TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_backfill') }) },
];

const N = 10_000;
const log = createSilentLogger();


for (const mode of MODES) {
  describe(`backfill: ${mode.name}`, () => {
    const env = mode.env();
    let modelServer: ModelServer | null = null;
    afterAll(async () => {
      await modelServer?.shutdown();
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });

    it('re-scores 10,000 units with a new check version, interrupted and resumed: one score per unit', async () => {
      modelServer = createModelServer({ port: 0, log });
      await modelServer.start();
      const fullEnv = { ...env, OPENAI_BASE_URL: `${modelServer.url()}/v1`, TRACECHECK_JUDGE_MODEL: 'mock-judge' };
      const config = loadConfig(fullEnv);
      const store = createStore(config, log);
      await store.start();
      const units = Array.from({ length: N }, (_, i) => createTestUnit(i, { agent_name: 'backfilled' }));
      for (let i = 0; i < N; i += 2_000) await store.writeUnits(units.slice(i, i + 2_000));
      // Version 1 and 2 of a user check (a deterministic code check keeps 10,000 runs fast).
      const v1 = { kind: 'code', name: 'short_answer', description: 'the answer is short', outputType: 'pass_fail', language: 'javascript', source: 'export function evaluate({ model_output }) { return model_output.length < 10; }' };
      const v2 = { ...v1, source: 'export function evaluate({ model_output }) { return model_output.length < 5; }' };
      const now = Date.now();
      await store.putDoc({ kind: 'check', project: 'default', id: 'short_answer', updated_at_ms: now, body: { name: 'short_answer', versions: [{ version: 'v1', created_at_ms: now, definition: v1 }, { version: 'v2', created_at_ms: now + 1, definition: v2 }] } });
      await store.shutdown();

      const first = captureIo(fullEnv);
      const stop = new AbortController();
      let pages = 0;
      first.stderr.on('data', (c: Buffer) => {
        pages += (c.toString().match(/^backfill \[/gm) ?? []).length;
        if (pages === 4) stop.abort(); // the start line and three pages
      });
      expect(await backfill(['--check', 'short_answer'], first, stop.signal)).toBe(130);
      expect(first.err()).toContain('backfill stopped; run the same command again to resume');
      const stopped = JSON.parse(first.out()) as { done: number; total: number; finished: boolean; version: string };
      expect(stopped.total).toBe(N);
      expect(stopped.finished).toBe(false);
      expect(stopped.done).toBeGreaterThanOrEqual(1_500);
      expect(stopped.done).toBeLessThan(N);

      const second = captureIo(fullEnv);
      expect(await backfill(['--check', 'short_answer'], second)).toBe(0);
      const finished = JSON.parse(second.out()) as { done: number; total: number; scored: number; finished: boolean; version: string };
      expect(finished).toMatchObject({ done: N, total: N, scored: N, finished: true, version: stopped.version });
      expect(second.err()).toMatch(/^backfill \[#{30}\] 10000\/10000 units \(10000 scored, 0 not matched\)$/m);

      const reader = createStore(config, log);
      await reader.start();
      try {
        const scores: Score[] = await reader.queryScores({ check: 'short_answer', checkVersion: stopped.version, limit: 10_000 });
        expect(scores).toHaveLength(N);
        expect(new Set(scores.map((s) => s.unit_id)).size).toBe(N);
        // v2: an answer of fewer than 5 characters passes; answers are i + 1 for i < 10,000.
        expect(scores.filter((s) => s.passed === true)).toHaveLength(9_999);
        expect(scores.every((s) => s.status === 'ok' && s.method === 'code')).toBe(true);
      } finally {
        await reader.shutdown();
      }
    }, 400_000);
  });
}
