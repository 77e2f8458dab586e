import { parseArgs } from 'node:util';
import { createCommandLogger } from '../command-logger.ts';
import type { BackfillProgress } from '../../services/scorer/src/index.ts';
import type { BackfillJob } from '../../services/api/src/index.ts';
import { createCodeSandbox } from '../../shared/engines/code-sandbox/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { BackfillRequestError, prepareBackfill, type BackfillRequest } from '../backfill-job.ts';
import { createJudge } from '../check-runtime.ts';
import { createStore } from '../compose.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { ServerApiError, findRunningServer, serverApi, type ServerApi } from '../running-server.ts';

/** How often the command asks the running server how its backfill goes. */
const POLL_MS = 1_000;

const USAGE = `usage: tracecheck backfill --check NAME [--from T] [--to T] [--monitor M] [--project P] [--key KEY] [--restart]

Re-scores project P's stored units (default "default") with the current version of one check (e.g.
after a new version), newest first, with the same idempotent writes as the scorer: one score per
unit, check and version. While tracecheck up runs, it runs there, through its API (an admin key of
P with --key or TRACECHECK_API_KEY once it has keys), and this command shows its progress. The
position is saved in the store after every page, so an interrupted run (Ctrl-C) resumes when run
again with the same arguments; --restart starts over. T is epoch ms or ISO 8601 (the units' end
time; --to defaults to when the first run started). --monitor applies that monitor's filters and
sample (stored in project P, default "default", or in TRACECHECK_MONITORS_FILE). User checks are
looked up in project P, then the catalog and TRACECHECK_CHECK_DEFINITIONS.
`;

function time(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(n) ? n : null;
}

function bar(p: BackfillProgress): string {
  const width = 30;
  const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
  return `backfill [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} units (${p.scored} scored, ${p.skipped} not matched)`;
}

export const backfillCommand: CliCommand = {
  name: 'backfill',
  summary: 're-score stored units with a check (e.g. its new version); resumable, idempotent',
  usage: USAGE,
  run: (argv, io) => backfill(argv, io),
};

/** The command; `signal` stops it after the current page like Ctrl-C does (tests). */
export async function backfill(argv: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { check: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, monitor: { type: 'string' }, project: { type: 'string' }, key: { type: 'string' }, restart: { type: 'boolean' }, help: { type: 'boolean' } } }).values;
  } catch (err) {
    io.stderr.write(`tracecheck backfill: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const fromMs = time(values.from);
  const toMs = time(values.to);
  if (!values.check || fromMs === null || toMs === null) {
    io.stderr.write(`tracecheck backfill: ${!values.check ? '--check is required' : '--from and --to take epoch ms or ISO 8601'}\n${USAGE}`);
    return 2;
  }
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const project = values.project ?? 'default';
  const request: BackfillRequest = {
    project,
    check: values.check,
    restart: values.restart === true,
    ...(values.monitor !== undefined ? { monitor: values.monitor } : {}),
    ...(fromMs !== undefined ? { fromMs } : {}),
    ...(toMs !== undefined ? { toMs } : {}),
  };
  const running = findRunningServer(config);
  if (running) return backfillThroughServer(serverApi(running, values.key ?? io.env.TRACECHECK_API_KEY, values.project), request, io, signal);
  const log = createCommandLogger(config, 'warn');
  const store = createStore(config, log);
  await store.start();
  const sandbox = createCodeSandbox({ ...config.sandbox, log: log.child({ component: 'code-sandbox' }) });
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  signal?.addEventListener('abort', onSigint, { once: true });
  try {
    let ready;
    try {
      ready = await prepareBackfill({ store, config, log, judge: createJudge(config, log.child({ component: 'judge' })), codeRunner: sandbox }, request);
    } catch (err) {
      if (!(err instanceof BackfillRequestError)) throw err;
      io.stderr.write(`tracecheck backfill: ${err.message}\n`);
      return 2;
    }
    const result = await ready.run(stop.signal, (p) => io.stderr.write(`${bar(p)}\n`));
    return finish(io, { backfill: result.id, check: ready.check, version: ready.version, ...result });
  } finally {
    process.off('SIGINT', onSigint);
    await sandbox.close();
    await store.shutdown();
  }
}

interface Outcome extends BackfillProgress {
  backfill: string;
  check: string;
  version: string;
  id: string;
  finished: boolean;
}

function finish(io: CliIo, outcome: Outcome): number {
  io.stdout.write(`${JSON.stringify(outcome)}\n`);
  if (!outcome.finished) io.stderr.write('backfill stopped; run the same command again to resume\n');
  return outcome.finished ? 0 : 130;
}

/** The running `tracecheck up` holds the store: it runs the backfill, this command watches it (Ctrl-C stops it there too). */
async function backfillThroughServer(api: ServerApi, req: BackfillRequest, io: CliIo, signal?: AbortSignal): Promise<number> {
  const body = { check: req.check, restart: req.restart, ...(req.monitor !== undefined ? { monitor: req.monitor } : {}), ...(req.fromMs !== undefined ? { from_ms: req.fromMs } : {}), ...(req.toMs !== undefined ? { to_ms: req.toMs } : {}) };
  let stopping = false;
  const onSigint = (): void => {
    stopping = true;
  };
  process.once('SIGINT', onSigint);
  signal?.addEventListener('abort', onSigint, { once: true });
  try {
    let job = await api.call<BackfillJob>('POST', '/api/v1/backfills', body);
    const path = `/api/v1/backfills/${encodeURIComponent(job.id)}`;
    let shown = '';
    let asked = false;
    for (;;) {
      const line = bar(job);
      if (line !== shown) io.stderr.write(`${line}\n`);
      shown = line;
      if (job.state !== 'running') break;
      if (stopping && !asked) {
        asked = true;
        job = await api.call<BackfillJob>('DELETE', path);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      job = await api.call<BackfillJob>('GET', path);
    }
    if (job.state === 'failed') {
      io.stderr.write(`tracecheck backfill: failed in the running tracecheck up: ${job.error ?? 'unknown error'}\n`);
      return 1;
    }
    return finish(io, { backfill: job.id, check: job.check, version: job.version, id: job.id, finished: job.state === 'finished', done: job.done, total: job.total, scored: job.scored, skipped: job.skipped });
  } catch (err) {
    if (!(err instanceof ServerApiError)) throw err;
    io.stderr.write(`tracecheck backfill: ${err.message}\n`);
    return err.status === 400 ? 2 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
