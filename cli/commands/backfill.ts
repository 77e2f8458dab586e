import { parseArgs } from 'node:util';
import { createCommandLogger } from '../command-logger.ts';
import { DEFAULT_PRICES, costUsd } from '../../shared/engines/judge/index.ts';
import { DOC_KINDS, MonitorSchema, listUserChecks, loadMonitorsFile, type Monitor } from '../../shared/engines/monitors/index.ts';
import type { CheckDefinition } from '../../shared/engines/checks/index.ts';
import { runBackfill, type BackfillProgress } from '../../services/scorer/src/index.ts';
import { createCodeSandbox } from '../../shared/engines/code-sandbox/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { createJudge, loadRegistry } from '../check-runtime.ts';
import { createStore } from '../compose.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { findRunningServer } from '../running-server.ts';

const USAGE = `usage: tracecheck backfill --check NAME [--from T] [--to T] [--monitor M] [--project P] [--restart]

Re-scores stored units with the current version of one check (e.g. after a new version), newest
first, with the same idempotent writes as the scorer: one score per unit, check and version. The
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
    values = parseArgs({ args: argv, options: { check: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, monitor: { type: 'string' }, project: { type: 'string' }, restart: { type: 'boolean' }, help: { type: 'boolean' } } }).values;
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
  const running = findRunningServer(config);
  if (running) {
    // A backfill runs for minutes with a judge of its own; the server's API has no route for it yet.
    io.stderr.write(`tracecheck backfill: tracecheck up (pid ${running.pid}, ${running.apiUrl}) holds the DuckDB file: stop it (Ctrl-C), run the backfill, then start it again\n`);
    return 1;
  }
  const log = createCommandLogger(config, 'warn');
  const project = values.project ?? 'default';
  const store = createStore(config, log);
  await store.start();
  const sandbox = createCodeSandbox({ ...config.sandbox, log: log.child({ component: 'code-sandbox' }) });
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  signal?.addEventListener('abort', onSigint, { once: true });
  try {
    const registry = loadRegistry(config.checkDefinitionsFile ?? undefined);
    for (const { check } of await listUserChecks(store, () => undefined, project)) {
      for (const v of check.versions) registry.createOrUpdateCheck(v.definition as unknown as CheckDefinition);
    }
    const check = registry.get(values.check);
    if (!check) {
      io.stderr.write(`tracecheck backfill: unknown check "${values.check}" in project ${project}\n`);
      return 2;
    }
    let monitor: Monitor | undefined;
    if (values.monitor) {
      const doc = await store.getDoc(DOC_KINDS.monitor, project, values.monitor);
      const stored = doc ? MonitorSchema.safeParse(doc.body) : null;
      monitor = stored?.success ? stored.data : (config.monitorsFile ? loadMonitorsFile(config.monitorsFile) : []).find((m) => m.name === values.monitor);
      if (!monitor) {
        io.stderr.write(`tracecheck backfill: no monitor "${values.monitor}" in project ${project}\n`);
        return 2;
      }
    }
    const judge = createJudge(config, log.child({ component: 'judge' }));
    const prices = { ...DEFAULT_PRICES, ...config.judgePrices };
    const result = await runBackfill({
      store,
      check,
      ...(monitor ? { monitor } : {}),
      ...(fromMs !== undefined ? { fromMs } : {}),
      ...(toMs !== undefined ? { toMs } : {}),
      judge,
      judgeUnavailableReason: judge ? null : config.judgeUnavailableReason,
      codeRunner: sandbox,
      costUsd: (model, i, o) => costUsd(prices, model, i, o),
      nowMs: Date.now,
      signal: stop.signal,
      restart: values.restart === true,
      onProgress: (p) => io.stderr.write(`${bar(p)}\n`),
    });
    io.stdout.write(`${JSON.stringify({ backfill: result.id, check: check.name, version: check.version, ...result })}\n`);
    if (!result.finished) io.stderr.write('backfill stopped; run the same command again to resume\n');
    return result.finished ? 0 : 130;
  } finally {
    process.off('SIGINT', onSigint);
    await sandbox.close();
    await store.shutdown();
  }
}
