import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { startAll } from '../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger, createLogger } from '../../shared/runtime/logging/index.ts';
import { createModelServer } from '../../tools/model-server/src/index.ts';
import { buildPipeline, type Pipeline } from '../../cli/pipeline.ts';

export interface Harness {
  pipeline: Pipeline;
  modelUrl: string;
  /** This run's topics. */
  topics: { spans: string; units: string; scores: string; sessions: string };
  /** Pass as `restartOf` to start the same deployment again (its data directory, topics and groups). */
  identity: { dataDir: string; id: string };
  stop(): Promise<void>;
}

function suffix(): string {
  return Math.random().toString(36).slice(2, 10);
}

/**
 * The whole pipeline in this process, on whatever `env` configures (Kafka + ClickHouse, or the
 * embedded bus + DuckDB), with our model server as the judge, free ports, its own topics and groups.
 */
export interface HarnessOptions {
  /** Also run the alerter, on this clock. */
  alerterNow?: () => number;
  /** A stopped harness's identity: the new one runs on its data directory, topics and groups (a restart). */
  restartOf?: { dataDir: string; id: string };
}

export async function startPipeline(env: Record<string, string>, options: HarnessOptions = {}): Promise<Harness> {
  const log = process.env.TRACECHECK_TEST_LOG ? createLogger({ level: process.env.TRACECHECK_TEST_LOG }) : createSilentLogger();
  const modelServer = createModelServer({ host: '127.0.0.1', port: 0, log });
  await modelServer.start();
  const dataDir = options.restartOf?.dataDir ?? mkdtempSync(join(tmpdir(), 'tracecheck-e2e-'));
  const config = loadConfig({
    TRACECHECK_DATA_DIR: dataDir,
    TRACECHECK_OTLP_HTTP_PORT: '0',
    TRACECHECK_OTLP_GRPC_PORT: '0',
    TRACECHECK_API_PORT: '0',
    TRACECHECK_TRACE_GRACE_MS: '300',
    OPENAI_BASE_URL: `${modelServer.url()}/v1`,
    TRACECHECK_JUDGE_MODEL: 'mock-judge',
    ...env,
  });
  const id = options.restartOf?.id ?? suffix();
  const services = new Set(['collector', 'assembler', 'scorer', 'api', ...(options.alerterNow ? (['alerter'] as const) : [])] as const);
  const topics = { spans: `e2e.spans.${id}`, units: `e2e.units.${id}`, scores: `e2e.scores.${id}`, sessions: `e2e.sessions.${id}` };
  const pipeline = buildPipeline(config, log, services, {
    ...(options.alerterNow ? { alerterNow: options.alerterNow } : {}),
    topics,
    groups: { assembler: `e2e-assembler-${id}`, scorer: `e2e-scorer-${id}`, sessions: `e2e-sessions-${id}`, problems: `e2e-problems-${id}` },
  });
  let stopAll: () => Promise<void>;
  try {
    stopAll = await startAll(pipeline.components, log);
  } catch (err) {
    await modelServer.shutdown();
    throw err;
  }
  return {
    pipeline,
    topics,
    identity: { dataDir, id },
    modelUrl: `${modelServer.url()}/v1`,
    stop: async () => {
      await stopAll();
      await modelServer.shutdown();
    },
  };
}
