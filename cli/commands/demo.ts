import { parseArgs } from 'node:util';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { createModelServer, type ModelServer } from '../../tools/model-server/src/index.ts';
import { DEMO_CHECKS, formatScoreTable, runDemo, waitForDemoScores } from '../../tools/demo-agent/src/index.ts';

const USAGE = `usage: tracecheck demo --collector URL [--model URL] [--model-name NAME] [--scores API_URL] [--timeout SECONDS]

Runs the demo agent: three conversations (healthy; a tool that fails; a loop of the same tool call),
each one trace, exported with the real OTel SDK (OTLP/HTTP protobuf) to the collector, and prints
their trace ids.

  --collector URL    OTLP/HTTP base URL of the collector, e.g. http://127.0.0.1:4318
  --model URL        OpenAI-compatible base URL for the agent's model (a URL with no path gets /v1);
                     default: a deterministic model server started for the run
  --model-name NAME  model to ask (default mock-accurate)
  --scores API_URL   then poll GET {API_URL}/api/v1/units/{traceId} until function_result_present
                     and task_completed are scored on each trace, and print them
  --timeout SECONDS  how long to wait for the scores (default 60)
`;

/** A bare server URL gets the OpenAI path; a URL with a path is taken as the full base URL. */
function openAiBaseUrl(url: string): string {
  const u = new URL(url);
  return u.pathname === '/' || u.pathname === '' ? `${u.origin}/v1` : url.replace(/\/+$/, '');
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      collector: { type: 'string' },
      model: { type: 'string' },
      'model-name': { type: 'string', default: 'mock-accurate' },
      scores: { type: 'string' },
      timeout: { type: 'string', default: '60' },
    },
  });
  if (!values.collector) {
    io.stderr.write(`tracecheck demo: --collector is required\n\n${USAGE}`);
    return 2;
  }
  const timeoutS = Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) {
    io.stderr.write(`tracecheck demo: --timeout must be a positive number of seconds\n`);
    return 2;
  }
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const log = createCommandLogger(config, 'warn');
  let localModel: ModelServer | null = null;
  try {
    let modelBaseUrl: string;
    if (values.model) {
      modelBaseUrl = openAiBaseUrl(values.model);
    } else {
      localModel = createModelServer({ port: 0, log });
      await localModel.start();
      modelBaseUrl = `${localModel.url()}/v1`;
    }
    const { traceIds } = await runDemo({ collectorUrl: values.collector, modelBaseUrl, model: values['model-name'], log });
    io.stdout.write(`demo traces sent to ${values.collector}:\n  healthy     ${traceIds.healthy}\n  tool fails  ${traceIds.toolFails}\n  loops       ${traceIds.loops}\n`);
    if (values.scores) {
      io.stdout.write(`\nwaiting for scores from ${values.scores} …\n`);
      const results = await waitForDemoScores({ apiUrl: values.scores, traceIds, checks: DEMO_CHECKS, timeoutMs: timeoutS * 1000 });
      io.stdout.write(`\n${formatScoreTable(results)}\n`);
    }
    return 0;
  } catch (err) {
    io.stderr.write(`tracecheck demo: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await localModel?.shutdown();
  }
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'Send the demo agent\'s three conversations (healthy, failing tool, loop) to a collector; --scores prints their scores',
  usage: USAGE,
  run,
};
