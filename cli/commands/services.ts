import { parseArgs } from 'node:util';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { runService } from '../../shared/lifecycle/index.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { buildPipeline, type ServiceName } from '../pipeline.ts';

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
  await runService(pipeline.components, log);
  return 0;
}

function serviceCommand(name: ServiceName, summary: string, detail: string): CliCommand {
  return {
    name,
    summary,
    usage: `usage: tracecheck ${name}\n\n${summary}\n\n${detail}\nConfiguration comes from the environment (README.md, "Configuration").`,
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
export const apiCommand = serviceCommand('api', 'HTTP API (:8080): units with their scores, score queries', 'GET /api/v1/units/{unitId}, GET /api/v1/scores?check=&from=&to=&limit=\n');
