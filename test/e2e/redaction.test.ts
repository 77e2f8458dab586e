import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildPipeline } from '../../cli/pipeline.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { startAll } from '../../shared/runtime/lifecycle/index.ts';
import { createLogger } from '../../shared/runtime/logging/index.ts';
import { createModelServer } from '../../tools/model-server/src/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { dropDatabase } from '../helpers/score-counts.ts';
import { clickHouseText, duckDbText, filesText, kafkaText, recordingProxy } from './redaction-search.ts';
import { FORBIDDEN, NOT_A_CARD, SECRETS, sendPythonCapture, sendSdkRun } from './redaction-traffic.ts';

// Issue 24.4: secrets in prompts, tool arguments and tool results, sent by the OTel JS SDK and a
// Python capture, are found nowhere after the collector — not on the bus, in the store, in a judge
// request or in a log line — with redaction at its default; loop_guard still sees the loop whose
// repeated argument was an email.

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures');
const CHECKS = ['loop_guard', 'task_completed'];

interface Mode {
  name: string;
  env(): Record<string, string>;
  /** Everything written to the bus and the store, as text, after the pipeline stopped. */
  stored(dataDir: string, env: Record<string, string>, topics: readonly string[]): Promise<{ places: string[]; text: string }>;
  cleanUp(env: Record<string, string>): Promise<void>;
}

const MODES: Mode[] = [
  {
    name: 'embedded bus + DuckDB',
    env: () => ({}),
    async stored(dataDir) {
      const db = await duckDbText(join(dataDir, 'tracecheck.duckdb'));
      return { places: ['files', ...db.tables], text: `${filesText(dataDir)}\n${db.text}` };
    },
    cleanUp: () => Promise.resolve(),
  },
  {
    name: 'Kafka + ClickHouse 18.16',
    env: () => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('redaction') }),
    async stored(dataDir, env, topics) {
      const [bus, db] = await Promise.all([kafkaText(testKafkaBrokers(), topics), clickHouseText(testClickHouseUrl(), env.TRACECHECK_CLICKHOUSE_DATABASE)]);
      expect(bus.records).toBeGreaterThan(0);
      return { places: ['topics', ...db.tables], text: `${filesText(dataDir)}\n${bus.text}\n${db.text}` };
    },
    cleanUp: (env) => dropDatabase(testClickHouseUrl(), env.TRACECHECK_CLICKHOUSE_DATABASE),
  },
];

interface UnitScores {
  scores: Array<{ check: string; passed: boolean | null; explanation: string }>;
  unit: { tool_calls: Array<{ arguments: unknown }> };
}

async function scoredUnit(apiUrl: string, traceId: string): Promise<UnitScores> {
  return waitFor(
    async () => {
      const res = await fetch(`${apiUrl}/api/v1/units/${traceId}`);
      if (res.status !== 200) return null;
      const body = (await res.json()) as UnitScores;
      return CHECKS.every((c) => body.scores.some((s) => s.check === c)) ? body : null;
    },
    { timeoutMs: 120_000, intervalMs: 250, description: `scores of ${traceId}` },
  );
}

function found(text: string): string[] {
  return FORBIDDEN.filter((secret) => text.includes(secret));
}

describe.each(MODES)('redaction end to end ($name)', (mode) => {
  it('stores, sends and logs none of the secrets; loop_guard still finds the loop over an email', async () => {
    const logText: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        logText.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ level: 'debug', destination });
    const modelServer = createModelServer({ host: '127.0.0.1', port: 0, log });
    await modelServer.start();
    const proxy = await recordingProxy(modelServer.url());
    const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-redaction-'));
    const env = mode.env();
    const id = uniqueName('r');
    const topics = { spans: `e2e.spans.${id}`, units: `e2e.units.${id}`, scores: `e2e.scores.${id}`, sessions: `e2e.sessions.${id}` };
    try {
      const config = loadConfig({
        TRACECHECK_DATA_DIR: dataDir,
        TRACECHECK_OTLP_HTTP_PORT: '0',
        TRACECHECK_OTLP_GRPC_PORT: '0',
        TRACECHECK_API_PORT: '0',
        TRACECHECK_TRACE_GRACE_MS: '300',
        OPENAI_BASE_URL: `${proxy.url}/v1`,
        TRACECHECK_JUDGE_MODEL: 'mock-judge',
        TRACECHECK_CHECKS: CHECKS.join(','),
        ...env,
      });
      expect(config.redaction.mode).toBe('redact');
      const pipeline = buildPipeline(config, log, new Set(['collector', 'assembler', 'scorer', 'api'] as const), {
        topics,
        groups: { assembler: `e2e-assembler-${id}`, scorer: `e2e-scorer-${id}`, sessions: `e2e-sessions-${id}` },
      });
      const stopAll = await startAll(pipeline.components, log);
      let metricsText = '';
      let units: UnitScores[] = [];
      try {
        const sdkTrace = await sendSdkRun(pipeline.collectorUrl());
        const pythonTrace = await sendPythonCapture(pipeline.collectorUrl(), FIXTURES);
        units = await Promise.all([scoredUnit(pipeline.apiUrl(), sdkTrace), scoredUnit(pipeline.apiUrl(), pythonTrace)]);
        metricsText = await (await fetch(`${pipeline.apiUrl()}/metrics`)).text();
      } finally {
        await stopAll();
      }

      for (const unit of units) {
        const loop = unit.scores.find((s) => s.check === 'loop_guard');
        expect(loop?.passed).toBe(false);
        expect(loop?.explanation).toContain('<email:1>');
        expect(JSON.stringify(unit.unit.tool_calls)).toContain('<email:1>');
      }
      const stored = await mode.stored(dataDir, env, Object.values(topics));
      expect(stored.places).toEqual(expect.arrayContaining(mode.name.startsWith('Kafka') ? ['topics', 'units', 'scores'] : ['files', 'units', 'scores']));
      expect(found(stored.text)).toEqual([]);
      // The placeholders made it, and the number failing Luhn is no card: kept.
      for (const kind of ['email', 'card', 'phone', 'openai_key', 'jwt']) expect(stored.text).toContain(`<${kind}:1>`);
      expect(stored.text).toContain(NOT_A_CARD);
      expect(proxy.bodies.length).toBeGreaterThan(0);
      expect(found(proxy.bodies.join('\n'))).toEqual([]);
      expect(proxy.bodies.join('\n')).toContain('<email:1>');
      expect(logText.length).toBeGreaterThan(0);
      expect(found(logText.join(''))).toEqual([]);
      expect(metricsText).toMatch(/tracecheck_redactions_total\{rule="email",mode="redact"\} [1-9]/);
      expect(metricsText).toMatch(/tracecheck_redactions_total\{rule="card",mode="redact"\} [1-9]/);
      expect(SECRETS.email).toBe('jane.doe@example.com');
    } finally {
      await proxy.close();
      await modelServer.shutdown();
      await mode.cleanUp(env);
    }
  }, 300_000);
});
