import { parseArgs } from 'node:util';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { startAll, waitForShutdownSignal } from '../../shared/runtime/lifecycle/index.ts';
import { createModelServer } from '../../tools/model-server/src/index.ts';

const USAGE = `usage: tracecheck model-server [--port 8787] [--host 127.0.0.1]

Runs tracecheck's deterministic OpenAI-compatible model server (POST /v1/chat/completions, streaming
included; GET /v1/models) until Ctrl-C. It answers judge prompts ([[True]]/[[False]], [[n]], pairwise
[[A]]/[[B]]/[[tie]]), plays a scripted tool-using agent, does arithmetic (model mock-sloppy errs on
purpose) and echoes anything else; the same request always gets the same answer. It is the only
stand-in for a model that tests use. Rules: tools/model-server/README.md.

  --port   port to listen on (default 8787; 0 picks a free one)
  --host   interface to bind (default 127.0.0.1)
`;

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string', default: '8787' }, host: { type: 'string', default: '127.0.0.1' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write(`tracecheck model-server: --port must be an integer 0-65535, got "${values.port}"\n`);
    return 2;
  }
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const log = createCommandLogger(config, 'warn');
  const server = createModelServer({ host: values.host, port, log });
  let stop: () => Promise<void>;
  try {
    stop = await startAll([server], log);
  } catch (err) {
    io.stderr.write(`tracecheck model-server: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  io.stdout.write(`model server listening on ${server.url()}\n  OPENAI_BASE_URL=${server.url()}/v1\nPress Ctrl-C to stop.\n`);
  await waitForShutdownSignal();
  await stop();
  return 0;
}

export const modelServerCommand: CliCommand = {
  name: 'model-server',
  summary: 'Deterministic OpenAI-compatible model server (judge, scripted agent, arithmetic) for tests and the demo',
  usage: USAGE,
  run,
};
