import type { ExploreRow, QueryStore, Store } from '../../../shared/adapters/store/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { addOccurrences, getProblem, listProblemActions, listProblems, loadMinerState, loadVersionCounts, problemIdFor, splitVersionKey, versionRates, type Problem, type ProblemAction, type VersionRate } from '../../../shared/engines/problems/index.ts';

// The problems as the API and the Problems page show them: the miner's documents with people's
// decisions applied (a dismissed one hidden unless asked for; a merged one folded into its target),
// ranked by the units each costs now (the last 24 hours) or by growth (against the 24 hours before).

const DAY_MS = 86_400_000;
/** The growth test's parameters: those of the regression alerts' defaults. */
const GROWTH_TEST = { alpha: 0.05, minSamples: 30 } as const;

export interface ProblemView extends Problem {
  /** Units in the last 24 hours, and in the 24 hours before. */
  recent: number;
  previous: number;
  /** Versions (not keys) it grew in. */
  growing_versions: string[];
  /** Problems merged into this one. */
  merged: string[];
}

export type ProblemSort = 'cost' | 'growth';

function within(trend: Record<string, number>, fromMs: number, toMs: number): number {
  let n = 0;
  for (const [hour, count] of Object.entries(trend)) if (Number(hour) >= fromMs && Number(hour) < toMs) n += count;
  return n;
}

function fold(into: Problem, p: Problem): void {
  addOccurrences(into, p);
  into.sample = [...new Set([...into.sample, ...p.sample])].slice(0, 40);
  into.templates = [...into.templates, ...p.templates];
}

function applyActions(problems: Problem[], actions: ReadonlyMap<string, ProblemAction>): Map<string, { problem: Problem; merged: string[] }> {
  const byId = new Map(problems.map((p) => [p.id, { problem: structuredClone({ ...p, ...actions.get(p.id) }), merged: [] as string[] }]));
  const target = (id: string): string => {
    let at = id;
    for (let hops = 0; hops < 16; hops++) {
      const next = byId.get(at)?.problem.merged_into?.id;
      if (!next || !byId.has(next) || next === id) break;
      at = next;
    }
    return at;
  };
  for (const [id, entry] of byId) {
    if (!entry.problem.merged_into) continue;
    const into = target(id);
    if (into === id) continue;
    fold(byId.get(into)!.problem, entry.problem);
    byId.get(into)!.merged.push(id);
  }
  return byId;
}

function viewOf(p: Problem, merged: string[], nowMs: number): ProblemView {
  return {
    ...p,
    recent: within(p.trend, nowMs - DAY_MS, nowMs + 1),
    previous: within(p.trend, nowMs - 2 * DAY_MS, nowMs - DAY_MS),
    growing_versions: p.growing_in.map((k) => splitVersionKey(k).version ?? ''),
    merged,
  };
}

export async function problemViews(store: QueryStore, project: string, nowMs: number, options: { sort: ProblemSort; includeDismissed: boolean }): Promise<ProblemView[]> {
  const [problems, actions] = await Promise.all([listProblems(store, project), listProblemActions(store, project)]);
  const views = [...applyActions(problems, actions).values()]
    .filter(({ problem }) => !problem.merged_into && (options.includeDismissed || !problem.dismissed))
    .map(({ problem, merged }) => viewOf(problem, merged, nowMs));
  const byCost = (a: ProblemView, b: ProblemView) => b.recent - a.recent || b.count - a.count || (a.id < b.id ? -1 : 1);
  const byGrowth = (a: ProblemView, b: ProblemView) => b.growing_versions.length - a.growing_versions.length || b.recent - b.previous - (a.recent - a.previous) || byCost(a, b);
  return views.sort(options.sort === 'growth' ? byGrowth : byCost);
}

export interface ProblemDetail {
  problem: ProblemView;
  /** Units per hour, oldest first. */
  trend: Array<{ t: number; units: number }>;
  /** Per version of its agent: rate, interval, and the always-valid test against the version before. */
  versions: VersionRate[];
}

export async function problemDetail(store: QueryStore, project: string, id: string, nowMs: number): Promise<ProblemDetail | null> {
  const [problems, actions, counts] = await Promise.all([listProblems(store, project), listProblemActions(store, project), loadVersionCounts(store, project)]);
  const entry = applyActions(problems, actions).get(id);
  if (!entry) return null;
  const problem = viewOf(entry.problem, entry.merged, nowMs);
  const trend = Object.entries(problem.trend).map(([t, units]) => ({ t: Number(t), units })).sort((a, b) => a.t - b.t);
  return { problem, trend, versions: versionRates(problem, counts, GROWTH_TEST) };
}

/** The problem a unit belongs to (its signature against the stored book), after people's merges; null when none. */
export async function problemOfUnit(store: QueryStore, project: string, unit: Unit, scores: readonly Score[]): Promise<{ id: string; title: string } | null> {
  const id = problemIdFor(unit, scores, await loadMinerState(store, project));
  if (!id) return null;
  const actions = await listProblemActions(store, project);
  let at = id;
  for (let hops = 0; hops < 16 && actions.get(at)?.merged_into; hops++) at = actions.get(at)!.merged_into!.id;
  const p = await getProblem(store, project, at);
  return p ? { id: p.id, title: p.title } : null;
}

/**
 * Problem badges for the explorer's rows: a failed row's unit (one query for the page) is signed as
 * the miner signs it, with its badges' verdicts; a row the signature cannot place without its
 * checks' explanations falls back to the problems' samples.
 */
export async function problemsOfRows(store: Store, project: string, rows: readonly ExploreRow[]): Promise<Map<string, { id: string; title: string }>> {
  const failed = rows.filter((r) => r.errored === true || r.scores.some((s) => s.status === 'error' || (s.status === 'ok' && s.passed === false)));
  const out = new Map<string, { id: string; title: string }>();
  if (failed.length === 0) return out;
  const [units, miner, problems] = await Promise.all([store.getUnits(failed.map((r) => r.unit_id), project), loadMinerState(store, project), listProblems(store, project)]);
  const byId = new Map(problems.map((p) => [p.id, p]));
  const sampled = new Map<string, Problem>();
  for (const p of problems) for (const u of p.sample) sampled.set(u, p);
  for (const r of failed) {
    const unit = units.get(r.unit_id);
    const scores = r.scores.map((b) => ({ check: b.check, status: b.status as Score['status'], passed: b.passed, explanation: '', error: null }));
    const id = unit ? problemIdFor(unit, scores, miner) : null;
    const p = (id ? byId.get(id) : undefined) ?? sampled.get(r.unit_id);
    if (p) out.set(r.unit_id, { id: p.merged_into?.id ?? p.id, title: p.title });
  }
  return out;
}
