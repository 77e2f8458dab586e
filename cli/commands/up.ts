import { parseArgs } from 'node:util';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { startAll, untilFatal, waitForShutdownSignal } from '../../shared/runtime/lifecycle/index.ts';
import { createJudge } from '../check-runtime.ts';
import { createModelServer } from '../../tools/model-server/src/index.ts';
import { runDemo, waitForDemoScores, formatScoreTable } from '../../tools/demo-agent/src/index.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { buildPipeline, type ServiceName } from '../pipeline.ts';
import { startFailureMessage } from '../start-failure.ts';
import { removeServerFile, writeServerFile } from '../running-server.ts';

/** Every service, in one process. */
const UP_SERVICES: ReadonlySet<ServiceName> = new Set(['collector', 'assembler', 'scorer', 'api', 'alerter'] as const);

const USAGE = `usage: tracecheck up [--demo] [--exit-after-demo]

Runs collector, assembler, scorer, API and alerter in one process. Without TRACECHECK_KAFKA_BROKERS and
TRACECHECK_CLICKHOUSE_URL this is the embedded mode: an in-process bus and a DuckDB file under
TRACECHECK_DATA_DIR (default ./data) in place of Kafka and ClickHouse, with the same code paths.

  --demo             also start our local deterministic model server (used as the agent's model and,
                     unless OPENAI_BASE_URL is set, as the judge), send the demo agent's three
                     conversations through the real OTel SDK, and print their scores
  --exit-after-demo  stop once the demo's scores are printed (exit code 1 if they did not arrive)

Settings for a first run (environment variables, with their defaults; all: docs/configuration.md):
  TRACECHECK_API_PORT=8080          the dashboard and the API
  TRACECHECK_OTLP_HTTP_PORT=4318    OTLP/HTTP: POST /v1/traces
  TRACECHECK_OTLP_GRPC_PORT=4317    OTLP/gRPC
  TRACECHECK_HOST=127.0.0.1         the address every server listens on
  TRACECHECK_DATA_DIR=./data        the DuckDB file and the bus's log
  TRACECHECK_CHECKS=function_result_present,task_completed   the checks run on every unit
  OPENAI_BASE_URL, OPENAI_API_KEY   the judge (any OpenAI-compatible endpoint); unset: model checks do not run
  TRACECHECK_JUDGE_MODEL=gpt-4o-mini  the judge's model
  TRACECHECK_KAFKA_BROKERS, TRACECHECK_CLICKHOUSE_URL   Kafka and ClickHouse instead of the embedded bus and DuckDB
  TRACECHECK_LOG_LEVEL              JSON logs on stderr; unset: warn when stdout is a terminal
                                    or with --demo, else info (as under a supervisor)

While it runs, "tracecheck datasets", "keys", "checks try", "compare --metrics" and "eval --dataset"
go through its API (it writes its address to TRACECHECK_DATA_DIR/server.json).
`;

/** `up`'s log level unless TRACECHECK_LOG_LEVEL says: a person at a terminal reads the banner, not info lines. */
export function upLogLevel(at: { demo: boolean; terminal: boolean }): 'warn' | 'info' {
  return at.demo || at.terminal ? 'warn' : 'info';
}

/**
 * What `up` prints once started: the dashboard first (the page a newcomer wants), then where to
 * send spans, the API and the alert rules.
 */
export function upBanner(at: { mode: string; collectorUrl: string; apiUrl: string; alertIntervalMs: number | null }): string {
  return [
    `tracecheck is up (${at.mode})`,
    `  dashboard          ${at.apiUrl}/`,
    `  send OTLP/HTTP to  ${at.collectorUrl}/v1/traces   (OTEL_EXPORTER_OTLP_ENDPOINT=${at.collectorUrl})`,
    `  API                ${at.apiUrl}/api/v1/scores`,
    ...(at.alertIntervalMs !== null ? [`  alert rules        ${at.apiUrl}/api/v1/alert-rules   (evaluated every ${at.alertIntervalMs} ms)`] : []),
    '',
  ].join('\n');
}

async function run(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { demo: { type: 'boolean', default: false }, 'exit-after-demo': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } }).values;
  } catch (err) {
    io.stderr.write(`tracecheck up: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const demo = values.demo || values['exit-after-demo'];
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const log = createCommandLogger(config, upLogLevel({ demo, terminal: (io.stdout as { isTTY?: boolean }).isTTY === true }));

  // The model server starts first: the demo's judge needs its address.
  const modelServer = demo ? createModelServer({ host: config.host, port: 0, log }) : null;
  await modelServer?.start();
  const judge = modelServer && !config.judge
    ? (createJudge(config, log.child({ component: 'judge' }), { baseUrl: `${modelServer.url()}/v1`, model: 'mock-judge' }) ?? undefined)
    : undefined;
  const pipeline = buildPipeline(config, log, UP_SERVICES, judge ? { judge } : {});

  let stopAll: () => Promise<void>;
  try {
    stopAll = await startAll(pipeline.components, log);
  } catch (err) {
    await modelServer?.shutdown();
    io.stderr.write(`tracecheck: could not start: ${startFailureMessage(err, config, UP_SERVICES)}\n`);
    return 1;
  }
  // Commands that read or write the DuckDB file this process now holds find its API here.
  const embedded = pipeline.store?.kind === 'duckdb';
  if (embedded) writeServerFile(config.dataDir, { pid: process.pid, apiUrl: pipeline.apiUrl() });
  const mode = `${pipeline.bus.kind === 'kafka' ? 'Kafka' : 'in-process bus'} + ${pipeline.store?.kind === 'clickhouse' ? 'ClickHouse' : 'DuckDB'}`;
  io.stdout.write(upBanner({ mode, collectorUrl: pipeline.collectorUrl(), apiUrl: pipeline.apiUrl(), alertIntervalMs: pipeline.alerter ? config.alerter.intervalMs : null }));

  let code = 0;
  if (modelServer) {
    io.stdout.write(`  local model server ${modelServer.url()}/v1 (deterministic stand-in for an LLM)\n\n`);
    try {
      const { traceIds } = await runDemo({ collectorUrl: pipeline.collectorUrl(), modelBaseUrl: `${modelServer.url()}/v1`, log });
      // The expanded list: TRACECHECK_CHECKS may say `all` or `deterministic`, which no score is named.
      const results = await waitForDemoScores({ apiUrl: pipeline.apiUrl(), traceIds, checks: pipeline.checkNames, timeoutMs: 60_000 });
      io.stdout.write(`${formatScoreTable(results)}\n`);
    } catch (err) {
      io.stderr.write(`tracecheck: demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
      code = 1;
    }
  }
  if (!values['exit-after-demo']) {
    io.stdout.write('Press Ctrl-C to stop.\n');
    const failure = untilFatal();
    const stop = await Promise.race([waitForShutdownSignal(), failure.promise]);
    failure.cancel();
    if (typeof stop !== 'string') {
      io.stderr.write(`tracecheck: stopped: ${stop.message}\n`);
      code = 1;
    }
  }
  if (embedded) removeServerFile(config.dataDir);
  await stopAll();
  await modelServer?.shutdown();
  return code;
}

export const upCommand: CliCommand = {
  name: 'up',
  summary: 'Everything in one process (embedded: in-process bus + DuckDB); --demo sends and scores a demo agent',
  usage: USAGE,
  run,
};
