import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckContext, CheckRegistry, RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { canonicalJson } from '../../../shared/engines/checks/index.ts';
import { errorMessage } from '../../../shared/runtime/errors/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { EvalConfigError } from './eval-error.ts';
import type { GenerationRequest, Generator } from './generation.ts';
import type { Progress } from './progress.ts';
import type { PromptResult, RowResult, RunResult, TryResult } from './result-types.ts';
import { openResumeLog } from './resume-log.ts';
import { rollupCounts, rollupStatus } from './rollup.ts';
import type { SnippetRunner } from './run-metrics.ts';
import { resolveChecks, runMetrics } from './run-metrics.ts';
import { runRowMetrics } from './row-metrics.ts';
import type { PromptSuite, Reference, Suite } from './suite-types.ts';
import { groupByVariant, rollUpTest } from './test-rollup.ts';
import { castVariables, renderTemplate } from './template.ts';
import { expandSweep } from './variants.ts';

export interface EvalDeps {
  log: Logger;
  generator: Generator;
  registry: CheckRegistry | null;
  checkContext: CheckContext;
  /** Python snippets: llmeval metric and roll-up code. */
  snippets: SnippetRunner | null;
  progress: Progress;
  now?: () => Date;
}

interface Row {
  key: string;
  prompt: PromptSuite;
  params: Record<string, unknown>;
  ref: Reference;
  request: Omit<GenerationRequest, 'tryIndex'>;
  tries: Array<TryResult | undefined>;
}

function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

function render(prompt: PromptSuite, vars: Record<string, unknown>): ChatMessage[] | null {
  const messages = prompt.source.messages;
  return messages ? messages.map((m) => ({ role: m.role, content: renderTemplate(m.template, vars) })) : null;
}

function buildRows(prompt: PromptSuite, timeoutMs: number): Row[] {
  const moduleHash = prompt.source.kind === 'module' ? createHash('sha256').update(readFileSync(prompt.source.path)).digest('hex') : undefined;
  const metricsId = prompt.metrics.map((m) => (m.kind === 'expression' ? [m.name, m.value?.source, m.pass?.source] : m.kind === 'code' ? [m.kind, m.name, m.code] : [m.kind, m.name]));
  const rows: Row[] = [];
  for (const params of expandSweep(prompt.params, prompt.sweep)) {
    for (const ref of prompt.references) {
      const variables = { ...prompt.variables, ...ref.input };
      // llmeval's prompts see their variables as strings; a module (our extension) gets them as written.
      const given = prompt.source.kind === 'module' ? variables : castVariables(variables);
      const messages = render(prompt, given);
      const request: Omit<GenerationRequest, 'tryIndex'> = {
        kind: prompt.source.kind === 'module' ? 'module' : prompt.source.kind === 'python' ? 'python' : 'chat',
        ...(prompt.source.kind === 'python' ? { code: prompt.source.code } : {}),
        params,
        messages,
        variables: given,
        baseUrl: prompt.baseUrl,
        apiKey: prompt.apiKey,
        timeoutMs,
        ...(prompt.source.kind === 'module' ? { modulePath: prompt.source.path, moduleHash } : {}),
      };
      const key = createHash('sha256')
        .update(canonicalJson({ prompt: prompt.name, params, messages, variables, moduleHash, ref: [ref.id, ref.expected, ref.skip], metricsId }))
        .digest('hex')
        .slice(0, 32);
      rows.push({ key, prompt, params, ref, request, tries: new Array<TryResult | undefined>(prompt.nTries).fill(undefined) });
    }
  }
  return rows;
}

/**
 * Runs every (reference, try) of every prompt variant with at most `concurrency` in flight, records
 * each finished try for resume, and rolls tries up per reference. Throws EvalConfigError when a
 * metric expression throws: such a run has no meaningful report.
 */
export async function runSuite(suite: Suite, deps: EvalDeps): Promise<{ result: RunResult; runDir: string }> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const runId = suite.config.runId ?? newRunId(started);
  const runDir = join(suite.config.outputDir, runId);
  const log = deps.log.child({ component: 'eval.runner', runId });

  const checksByPrompt = new Map<PromptSuite, Map<string, RunnableCheck>>();
  for (const p of suite.prompts) checksByPrompt.set(p, resolveChecks(p.metrics, deps.registry));
  const rows = suite.prompts.flatMap((p) => buildRows(p, suite.config.timeoutMs));

  const resume = openResumeLog(join(runDir, 'tries.jsonl'));
  const tasks: Array<{ row: Row; t: number }> = [];
  let resumed = 0;
  for (const row of rows) {
    for (let t = 0; t < row.tries.length; t++) {
      const prior = resume.get(row.key, t);
      if (prior) {
        row.tries[t] = prior;
        resumed++;
      } else tasks.push({ row, t });
    }
  }
  const totalTries = rows.reduce((n, r) => n + r.tries.length, 0);
  log.info({ rows: rows.length, tries: totalTries, resumed }, 'eval run starting');
  deps.progress.start(totalTries, resumed);

  let fatal: unknown = null;
  const runOne = async (row: Row, t: number): Promise<TryResult> => {
    const startedMs = Date.now();
    let actual: string;
    let messages: ChatMessage[];
    let cached = false;
    try {
      const gen = await deps.generator.generate({ ...row.request, tryIndex: t });
      actual = gen.output;
      messages = gen.messages;
      cached = gen.cached;
    } catch (err) {
      log.warn({ err, prompt: row.prompt.name, reference: row.ref.id, try: t }, 'generation failed');
      return { try: t, actual: null, error: errorMessage(err), metrics: [], passed: false, cached: false, latencyMs: Date.now() - startedMs };
    }
    const metrics = await runMetrics(row.prompt.metrics, checksByPrompt.get(row.prompt)!, { actual, messages, id: `${row.prompt.name}:${row.ref.id}:${t}` }, row.ref, {
      registry: deps.registry,
      ctx: deps.checkContext,
      snippets: deps.snippets,
    });
    const passed = metrics.every((m) => m.passed !== false && m.error === undefined);
    return { try: t, actual, messages, metrics, passed, cached, latencyMs: Date.now() - startedMs };
  };
  // After a fatal error no further try starts.
  const runTask = async ({ row, t }: (typeof tasks)[number]): Promise<void> => {
    if (fatal !== null) return;
    try {
      const result = await runOne(row, t);
      row.tries[t] = result;
      resume.record(row.key, result);
      deps.progress.tick();
    } catch (err) {
      fatal ??= err;
    }
  };
  try {
    await forEachLimited(tasks, suite.config.concurrency, runTask);
  } finally {
    deps.progress.finish();
  }
  if (fatal !== null) throw fatal instanceof Error ? fatal : new EvalConfigError(errorMessage(fatal));
  await runRowMetrics(rows, checksByPrompt, deps.checkContext, suite.config.concurrency);

  const rowResults = new Map<PromptSuite, RowResult[]>();
  for (const row of rows) {
    const tries = row.tries.map((t) => t!);
    const counts = rollupCounts(tries.map((t) => t.passed), row.ref.skip);
    // Roll-up code decides per test below; each reference then shows the default policy's status.
    const status = rollupStatus(counts, row.ref.skip, row.prompt.rollupCode !== null ? null : row.prompt.rollup, row.prompt.rollupPlace);
    const list = rowResults.get(row.prompt) ?? [];
    list.push({
      prompt: row.prompt.name,
      params: row.params,
      reference: { id: row.ref.id, input: row.ref.input, expected: row.ref.expected, skip: row.ref.skip },
      tries,
      counts,
      status,
    });
    rowResults.set(row.prompt, list);
  }
  const prompts: PromptResult[] = [];
  for (const p of suite.prompts) {
    const rows = rowResults.get(p) ?? [];
    const tests = p.rollupCode === null ? undefined : await Promise.all(groupByVariant(rows).map((g) => rollUpTest(p.rollupCode!, p.rollupSource, g, p.rollupPlace, deps.snippets)));
    prompts.push({ name: p.name, file: p.file, config: p.raw, metrics: p.metrics.map((m) => m.name), rollup: p.rollupSource, nTries: p.nTries, rows, ...(tests ? { tests } : {}) });
  }
  const all = prompts.flatMap((p) => p.rows);
  const allTries = all.flatMap((r) => r.tries);
  const summary = {
    rows: all.length,
    passed: all.filter((r) => r.status === 'pass').length,
    failed: all.filter((r) => r.status === 'fail').length,
    skipped: all.filter((r) => r.status === 'skip').length,
    tries: allTries.length,
    cachedTries: allTries.filter((t) => t.cached).length,
    resumedTries: resumed,
  };
  const result: RunResult = {
    runId,
    configFile: suite.config.file,
    config: suite.config.raw,
    startedAt: started.toISOString(),
    finishedAt: now().toISOString(),
    // A prompt with roll-up code passes when each of its tests does; any other, when no reference fails.
    passed: prompts.every((p) => (p.tests ? p.tests.every((t) => t.result === 'pass') : p.rows.every((r) => r.status !== 'fail'))),
    summary,
    prompts,
  };
  log.info({ ...summary, passed: result.passed }, 'eval run finished');
  return { result, runDir };
}
