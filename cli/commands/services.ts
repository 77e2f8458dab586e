import { parseArgs } from 'node:util';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { PortInUseError } from '../../shared/runtime/errors/index.ts';
import { runService } from '../../shared/runtime/lifecycle/index.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { buildPipeline, type ServiceName } from '../pipeline.ts';
import { startFailureMessage } from '../start-failure.ts';

async function runOne(service: ServiceName, argv: string[], io: CliIo): Promise<number> {
  parseArgs({ args: argv, options: {}, allowPositionals: false });
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const log = createCommandLogger(config, 'info');
  let pipeline;
  try {
    pipeline = buildPipeline(config, log, new Set([service]));
  } catch (err) {
    io.stderr.write(`tracecheck: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  let outcome;
  try {
    outcome = await runService(pipeline.components, log, { shutdownTimeoutMs: config.shutdownTimeoutMs });
  } catch (err) {
    // A failed start (what had started is stopped again) is one line, not a stack trace; a taken
    // port names its variable. Anything but a taken port is logged in full as well.
    if (!(err instanceof PortInUseError)) log.error({ err }, 'could not start');
    io.stderr.write(`tracecheck ${service}: could not start: ${startFailureMessage(err, config, new Set([service]))}\n`);
    return 1;
  }
  // Stopped (or out of time): a handle a client library left open must not keep the process up
  // past its shutdown bound. Unref'd: a process that ends by itself ends first.
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  if (typeof outcome !== 'string') {
    io.stderr.write(`tracecheck ${service}: stopped: ${outcome.message}\n`);
    return 1;
  }
  return outcome === 'stopped' ? 0 : 1;
}

/** After the components stopped, how long the process may take to end by itself. */
const EXIT_GRACE_MS = 1_000;

function serviceCommand(name: ServiceName, summary: string, detail: string): CliCommand {
  return {
    name,
    summary,
    usage: `usage: tracecheck ${name}\n\n${summary}\n\n${detail}\nConfiguration comes from the environment (docs/configuration.md).`,
    run: (argv, io) => runOne(name, argv, io),
  };
}

export const collectorCommand = serviceCommand(
  'collector',
  'OTLP receiver (HTTP :4318, gRPC :4317): spans to the bus, keyed by trace id',
  'Answers 200 only after the bus has acknowledged the spans; 503 + Retry-After when it cannot.\n',
);
export const assemblerCommand = serviceCommand(
  'assembler',
  'Builds units from spans: a trace once its root span has ended and a grace period passed',
  'Commits offsets only below the oldest open trace.\n',
);
export const scorerCommand = serviceCommand(
  'scorer',
  'Runs the configured checks (TRACECHECK_CHECKS) on every unit; writes scores to the store and the bus',
  'Model checks go to the judge at OPENAI_BASE_URL; without one they are scored "not_run" with the reason.\n',
);
export const alerterCommand = serviceCommand(
  'alerter',
  'Evaluates alert rules every TRACECHECK_ALERT_INTERVAL_MS; notifies webhooks and Slack on firing, reminder and recovery',
  'Rules are managed through the API (/api/v1/alert-rules); history at GET /api/v1/alerts. See services/alerter/README.md.\n',
);
export const apiCommand = serviceCommand('api', 'HTTP API and dashboard (:8080): units with their scores, score queries', 'GET /api/v1/units/{unitId}, GET /api/v1/scores?check=&from=&to=&limit=; the dashboard at /. Every endpoint: docs/api.md\n');
