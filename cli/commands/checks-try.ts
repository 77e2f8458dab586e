import { existsSync, readFileSync } from 'node:fs';
import { CheckDefinitionError, type CheckDefinition, type RunnableCheck } from '../../shared/engines/checks/index.ts';
import type { CheckAgreement, CheckTry } from '../../shared/engines/review/index.ts';
import { createReviewRepository, putCheckTry, tryCheck } from '../../shared/engines/review/index.ts';
import { addStoredChecks } from '../../shared/engines/monitors/index.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { CheckBodySchema, toDefinition } from '../../services/api/src/check-routes.ts';
import type { CliIo } from '../command.ts';
import { CheckStoreError } from '../check-store/index.ts';
import { contextFor, loadRegistry } from '../check-runtime.ts';
import { apiKey, withStoreOrServer } from '../store-command.ts';
import type { ServerApi } from '../running-server.ts';

export const TRY_USAGE = `  tracecheck checks try --check NAME (--version FILE.json|VERSION | --prompt-file rubric.txt) --against reviews [--current-version V] [--project P] [--definitions defs.jsonl] [--key KEY] [--json]`;

const pct = (p: number | null): string => (p === null || Number.isNaN(p) ? '–' : `${(100 * p).toFixed(1)}%`);

function figures(label: string, a: CheckAgreement, fallback: { successes: number; total: number }): string {
  const b = a.binary;
  if (b) {
    const ag = b.agreement;
    return `${label.padEnd(22)} ${`${ag.successes}/${ag.total}`.padStart(9)} ${pct(ag.proportion).padStart(7)}  ${`${pct(ag.lower)} – ${pct(ag.upper)}`.padEnd(17)} ${b.kappa === null ? '–' : b.kappa.toFixed(3)}`;
  }
  const s = a.score;
  return `${label.padEnd(22)} ${`${fallback.successes}/${fallback.total}`.padStart(9)}          mean abs diff ${s?.mean_abs_diff?.toFixed(3) ?? '–'}, Spearman ${s?.spearman?.toFixed(3) ?? '–'}`;
}

const verdict = (passed: boolean | null, value: number | null): string => (passed !== null ? (passed ? 'pass' : 'fail') : value === null ? '–' : String(value));

/** The try as text: both versions' agreement with people side by side, then the units that differ. */
function renderTry(t: CheckTry): string {
  const currentAgrees = { successes: t.current.binary?.agreement.successes ?? 0, total: t.current.reviews };
  const lines = [
    `${t.check}: ${t.units} reviewed units, ${t.current.reviews} reviews (project ${t.project})`,
    `${'version'.padEnd(22)} ${'agreement'.padStart(9)} ${''.padStart(7)}  ${'95% Wilson'.padEnd(17)} Cohen's kappa`,
    figures(`current ${t.current.version ?? '(as reviewed)'}`, t.current, currentAgrees),
    figures(`new ${t.new_version}`, t.candidate, t.new_agrees),
    `differ on ${t.differ.length} of ${t.units} units${t.not_scored.length > 0 ? `; ${t.not_scored.length} not scored by the new version` : ''}`,
    ...t.differ.map((d) => `  ${d.unit_id}  people: ${typeof d.human === 'boolean' ? (d.human ? 'pass' : 'fail') : (d.human ?? '–')}  current: ${verdict(d.current_passed, d.current_value)}  new: ${verdict(d.new_passed, d.new_value)}  ${d.new_explanation.replace(/\s+/g, ' ').slice(0, 120)}`),
    ...t.not_scored.map((n) => `  ${n.unit_id}  not scored: ${n.error}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The new version: a definition file (the body of POST /api/v1/checks), a stored version's id, or the current definition with a new prompt. */
function newDefinition(flags: Map<string, string | true>, name: string, history: (name: string) => { definition: CheckDefinition; version: string }[]): CheckDefinition | string {
  const version = flags.get('version');
  const promptFile = flags.get('prompt-file');
  if (typeof promptFile === 'string') {
    const current = history(name).at(-1)?.definition;
    if (current?.kind !== 'model') return `--prompt-file needs a model check named "${name}" to change; give --version FILE.json with the whole definition`;
    return { ...current, promptTemplate: readFileSync(promptFile, 'utf8') };
  }
  if (typeof version !== 'string') return 'give --version FILE.json|VERSION or --prompt-file FILE';
  if (existsSync(version)) {
    const body = CheckBodySchema.safeParse(JSON.parse(readFileSync(version, 'utf8')));
    if (!body.success) return `${version}: not a check definition (${body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`;
    return toDefinition(body.data);
  }
  const found = history(name).find((h) => h.version === version);
  return found ? found.definition : `no file "${version}" and no version "${version}" of check "${name}"`;
}

/** `tracecheck checks try`: reads reviews and units from the configured store, judges through the one judge client. */
export async function tryCommand(flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const name = flags.get('check');
  const against = flags.get('against') ?? 'reviews';
  if (typeof name !== 'string' || against !== 'reviews') {
    io.stderr.write(`tracecheck checks try: ${typeof name !== 'string' ? '--check NAME is required' : '--against takes only "reviews"'}\nusage:\n${TRY_USAGE}\n`);
    return 2;
  }
  const named = typeof flags.get('project') === 'string' ? (flags.get('project') as string) : undefined;
  const project = named ?? 'default';
  const defs = flags.get('definitions');
  const key = flags.get('key');
  return withStoreOrServer('checks try', io, { key: apiKey({ key }, io), project: named }, async (store, log) => {
    const config = loadConfig(io.env);
    let registry;
    try {
      registry = loadRegistry(typeof defs === 'string' ? defs : (config.checkDefinitionsFile ?? undefined));
    } catch (err) {
      if (err instanceof CheckStoreError) {
        io.stderr.write(`tracecheck checks try: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
    await addStoredChecks(registry, store, (doc) => log.warn({ id: doc.id }, 'stored user check does not parse; skipped'), project);
    const def = newDefinition(flags, name, (n) => registry.history(n).map((h) => ({ definition: h.definition, version: h.check.version })));
    if (typeof def === 'string') {
      io.stderr.write(`tracecheck checks try: ${def}\n`);
      return 2;
    }
    if (def.name !== name) {
      io.stderr.write(`tracecheck checks try: the definition is of "${def.name}", not "${name}"\n`);
      return 2;
    }
    let check: RunnableCheck;
    try {
      check = registry.createOrUpdateCheck(def);
    } catch (err) {
      if (!(err instanceof CheckDefinitionError)) throw err;
      io.stderr.write(`tracecheck checks try: ${err.message}\n`);
      return 2;
    }
    const { ctx, sandbox } = contextFor(config, check.kind === 'code' || check.usesCodeRunner === true);
    try {
      const reviews = await createReviewRepository(store).listReviews({ project, check: name });
      const current = flags.get('current-version');
      const result = await tryCheck(store, reviews, { project, check, ctx, nowMs: Date.now(), ...(typeof current === 'string' ? { currentVersion: current } : {}) });
      await putCheckTry(store, result);
      io.stdout.write(flags.get('json') ? `${JSON.stringify(result, null, 2)}\n` : renderTry(result));
      return 0;
    } finally {
      await sandbox?.close();
    }
  }, (api) => tryThroughServer(api, name, flags, io));
}

/**
 * The try run by the `tracecheck up` holding the store, with its judge: the body is the definition
 * file as POST /api/v1/checks takes it (a stored version or a prompt file needs the store's
 * history, which only the server reads).
 */
async function tryThroughServer(api: ServerApi, name: string, flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const version = flags.get('version');
  if (typeof version !== 'string' || !existsSync(version)) {
    io.stderr.write(`tracecheck checks try: tracecheck up runs (${api.url}): give --version FILE.json, the whole definition (as POST /api/v1/checks takes it), or stop it to try a stored version or --prompt-file\n`);
    return 2;
  }
  const body = CheckBodySchema.safeParse(JSON.parse(readFileSync(version, 'utf8')));
  if (!body.success) {
    io.stderr.write(`tracecheck checks try: ${version}: not a check definition (${body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})\n`);
    return 2;
  }
  if (body.data.name !== name) {
    io.stderr.write(`tracecheck checks try: the definition is of "${body.data.name}", not "${name}"\n`);
    return 2;
  }
  const current = flags.get('current-version');
  const query = typeof current === 'string' ? `?current_version=${encodeURIComponent(current)}` : '';
  const result = await api.call<CheckTry>('POST', `/api/v1/checks/${encodeURIComponent(name)}/try${query}`, JSON.parse(readFileSync(version, 'utf8')));
  io.stdout.write(flags.get('json') ? `${JSON.stringify(result, null, 2)}\n` : renderTry(result));
  return 0;
}
