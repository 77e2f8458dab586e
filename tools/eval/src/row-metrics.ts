import type { CheckContext, CheckInput, RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { canonicalJson, runCheck } from '../../../shared/engines/checks/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import type { MetricResult, TryResult } from './result-types.ts';
import { checkInput } from './run-metrics.ts';
import type { PromptSuite, Reference } from './suite-types.ts';

export interface RowTries {
  prompt: PromptSuite;
  params: Record<string, unknown>;
  ref: Reference;
  tries: Array<TryResult | undefined>;
}

interface Entry {
  result: TryResult;
  input: CheckInput;
}

/**
 * Checks that compare rows (uniqueness) run once every try is generated: each output is compared
 * with the other outputs of the same prompt and variant (every reference and try of it), as an
 * Okareo evaluation compares the rows of one run. Their results join each try's metrics in the
 * prompt's metric order, and the try's verdict is taken again.
 */
export async function runRowMetrics(rows: readonly RowTries[], checksByPrompt: ReadonlyMap<PromptSuite, ReadonlyMap<string, RunnableCheck>>, ctx: CheckContext, concurrency: number): Promise<void> {
  const groups = new Map<string, { prompt: PromptSuite; entries: Entry[] }>();
  for (const row of rows) {
    const checks = checksByPrompt.get(row.prompt);
    if (!checks || ![...checks.values()].some((c) => c.comparesRows)) continue;
    const key = `${row.prompt.name}\u0000${canonicalJson(row.params)}`;
    const group = groups.get(key) ?? { prompt: row.prompt, entries: [] };
    row.tries.forEach((result, t) => {
      if (!result || result.actual === null) return;
      group.entries.push({ result, input: checkInput({ actual: result.actual, messages: result.messages ?? [], id: `${row.prompt.name}:${row.ref.id}:${t}` }, row.ref) });
    });
    groups.set(key, group);
  }
  const work = [...groups.values()].flatMap((g) => g.entries.map((entry) => ({ prompt: g.prompt, entry, batch: g.entries.map((e) => e.input) })));
  await forEachLimited(work, concurrency, async ({ prompt, entry, batch }) => {
    const checks = checksByPrompt.get(prompt)!;
    const added = new Map<string, MetricResult>();
    for (const [name, check] of checks) {
      if (!check.comparesRows) continue;
      const outcome = await runCheck(check, entry.input, { ...ctx, batch });
      const decided = { method: outcome.method, checkVersion: check.version };
      added.set(name, outcome.status === 'ok'
        ? { name, value: outcome.value, passed: outcome.passed, ...decided, ...(outcome.explanation ? { explanation: outcome.explanation } : {}) }
        : { name, value: null, passed: false, ...decided, error: `${outcome.status}: ${outcome.error}` });
    }
    const byName = new Map(entry.result.metrics.map((m) => [m.name, m]));
    for (const [name, m] of added) byName.set(name, m);
    entry.result.metrics = prompt.metrics.map((m) => byName.get(m.name)).filter((m): m is MetricResult => m !== undefined);
    entry.result.passed = entry.result.metrics.every((m) => m.passed !== false && m.error === undefined);
  });
}
