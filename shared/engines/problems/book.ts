import { createTemplateMiner, type TemplateMinerState } from './template-miner.ts';
import { fnv1a, stableId } from './hash.ts';
import { groupingKey, isFailure, signatureOf, type FailureScore, type FailureUnit } from './signature.ts';
import { addOccurrences, HOUR_MS, MAX_SAMPLE, MAX_TEMPLATES, TREND_HOURS, titleOf, versionKey, type Problem, type ProblemEvent } from './problem.ts';
import { lifecycleEvents, growthEvent, versionRates, type LifecycleOptions, type VersionRate } from './lifecycle.ts';

/** Units of one agent version seen by the book (failed or not): the denominators of the rates. */
export interface VersionCount {
  units: number;
  first_seen_ms: number;
  last_seen_ms: number;
}

/** Everything a book holds, as plain JSON: what the store keeps per project. */
export interface ProblemBookState {
  problems: Problem[];
  miner: TemplateMinerState;
  versions: Record<string, VersionCount>;
  /** The last units seen (replays of them are not counted twice). */
  recent_units: string[];
}

export interface ProblemBookOptions extends Partial<LifecycleOptions> {
  /** Drain's similarity threshold; default 0.5. */
  similarity?: number;
  /** Problems kept at most; past it, new signatures count under one overflow problem. Default 1,000. */
  maxProblems?: number;
  /** Unit ids remembered for de-duplication; default 3,000. */
  recentUnits?: number;
}

/** The unit as the scores describe it (every unit counts toward its version's rate). */
export interface UnitRef {
  unit_id: string;
  agent_name: string | null;
  agent_version: string | null;
  end_time_ms: number;
}

interface Observation {
  /** The problem the unit was counted in; null when it did not fail (or was seen already). */
  problemId: string | null;
  events: ProblemEvent[];
}

export interface ProblemBook {
  /** One unit with its scores, and the unit itself when it was found (its steps, tool calls and errors). */
  observe(ref: UnitRef, scores: readonly FailureScore[], unit: FailureUnit | null): Observation;
  /** Lifecycle by time and by versions (resolved, new → ongoing) and growth, at `nowMs`. */
  tick(nowMs: number): ProblemEvent[];
  get(id: string): Problem | undefined;
  list(): Problem[];
  versions(): Readonly<Record<string, VersionCount>>;
  /** The problem's rate per version of its agent, with intervals and the growth test. */
  rates(id: string): VersionRate[];
  dismiss(id: string, reason: string, atMs: number): Problem;
  merge(id: string, intoId: string, reason: string, atMs: number): Problem;
  /** Ids changed since the last call (what to write back), and clears them. */
  takeChanged(): string[];
  state(): ProblemBookState;
}

const OVERFLOW_KEY = 'overflow';

/** Keeps `sample` as the MAX_SAMPLE ids with the smallest hash (then id), in that order: one hash per id looked at. */
function insertSample(sample: string[], unitId: string): void {
  const h = fnv1a(unitId);
  const before = (other: string): boolean => {
    const ho = fnv1a(other);
    return h < ho || (h === ho && unitId < other);
  };
  if (sample.length >= MAX_SAMPLE && !before(sample[sample.length - 1])) return;
  let lo = 0;
  let hi = sample.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(sample[mid])) hi = mid;
    else lo = mid + 1;
  }
  if (lo > 0 && sample[lo - 1] === unitId) return;
  sample.splice(lo, 0, unitId);
  if (sample.length > MAX_SAMPLE) sample.pop();
}

function bumpTrend(trend: Record<string, number>, atMs: number): void {
  const hour = String(Math.floor(atMs / HOUR_MS) * HOUR_MS);
  trend[hour] = (trend[hour] ?? 0) + 1;
  const hours = Object.keys(trend);
  if (hours.length > TREND_HOURS) {
    hours.sort((a, b) => Number(a) - Number(b));
    for (const old of hours.slice(0, hours.length - TREND_HOURS)) delete trend[old];
  }
}

export function createProblemBook(options: ProblemBookOptions = {}, initial?: ProblemBookState): ProblemBook {
  const lifecycle: LifecycleOptions = {
    resolveAfterMs: options.resolveAfterMs ?? 24 * HOUR_MS,
    newForMs: options.newForMs ?? 24 * HOUR_MS,
    minVersionUnits: options.minVersionUnits ?? 100,
    alpha: options.alpha ?? 0.05,
    minSamples: options.minSamples ?? 30,
  };
  const maxProblems = options.maxProblems ?? 1_000;
  const recentLimit = options.recentUnits ?? 3_000;
  // 500 templates of at most 64 tokens keep the stored book well under the store's 1 MB per document.
  const miner = createTemplateMiner({ similarity: options.similarity ?? 0.5, maxTemplates: 500 }, initial?.miner);
  const problems = new Map<string, Problem>((initial?.problems ?? []).map((p) => [p.id, structuredClone(p)]));
  const versions = new Map<string, VersionCount>(Object.entries(initial?.versions ?? {}).map(([k, v]) => [k, { ...v }]));
  const recent = new Set<string>(initial?.recent_units ?? []);
  const changed = new Set<string>();

  function remember(unitId: string): boolean {
    if (recent.has(unitId)) return false;
    recent.add(unitId);
    if (recent.size > recentLimit) recent.delete(recent.values().next().value!);
    return true;
  }

  function resolveMerged(id: string): Problem | undefined {
    let p = problems.get(id);
    for (let hops = 0; p?.merged_into && hops < 16; hops++) p = problems.get(p.merged_into.id);
    return p;
  }

  function observe(ref: UnitRef, scores: readonly FailureScore[], unit: FailureUnit | null): Observation {
    if (!remember(ref.unit_id)) return { problemId: null, events: [] };
    const vkey = versionKey(ref.agent_name, ref.agent_version);
    const v = versions.get(vkey) ?? { units: 0, first_seen_ms: ref.end_time_ms, last_seen_ms: ref.end_time_ms };
    v.units++;
    v.first_seen_ms = Math.min(v.first_seen_ms, ref.end_time_ms);
    v.last_seen_ms = Math.max(v.last_seen_ms, ref.end_time_ms);
    versions.set(vkey, v);
    const facts: FailureUnit = unit ?? { unit_id: ref.unit_id, agent_name: ref.agent_name, agent_version: ref.agent_version, end_time_ms: ref.end_time_ms, errors: [], tool_calls: [] };
    if (!isFailure(facts, scores)) return { problemId: null, events: [] };
    const sig = signatureOf(facts, scores);
    const mined = miner.add(sig.text);
    let key = groupingKey(sig, mined.id);
    let id = stableId(key);
    if (!problems.has(id) && problems.size >= maxProblems) {
      key = OVERFLOW_KEY;
      id = stableId(key);
    }
    const events: ProblemEvent[] = [];
    let p = resolveMerged(id);
    const at = ref.end_time_ms;
    if (!p) {
      p = {
        id, key, title: '', cause: sig.cause, agent: sig.agent, tool: sig.tool, error_class: sig.errorClass,
        shape: sig.loop ? sig.loop.cycle.join('>') : sig.handoff, point: sig.point, checks: {}, count: 0,
        first_seen_ms: at, last_seen_ms: at, templates: [], sample: [], by_version: {}, trend: {},
        state: 'new', state_since_ms: at, growing_in: [],
      };
      problems.set(id, p);
      events.push({ kind: 'problem_new', problem_id: id, at_ms: at, units: [ref.unit_id] });
    } else if (p.state === 'resolved') {
      p.state = 'regressed';
      p.state_since_ms = at;
      events.push({ kind: 'problem_regressed', problem_id: p.id, at_ms: at, units: [] });
    }
    p.count++;
    p.first_seen_ms = Math.min(p.first_seen_ms, at);
    p.last_seen_ms = Math.max(p.last_seen_ms, at);
    for (const c of sig.checks) p.checks[c] = (p.checks[c] ?? 0) + 1;
    p.by_version[vkey] = (p.by_version[vkey] ?? 0) + 1;
    bumpTrend(p.trend, at);
    insertSample(p.sample, ref.unit_id);
    const entry = p.templates.find((t) => t.id === mined.id);
    if (entry) {
      entry.count++;
      entry.template = mined.template;
    } else if (p.templates.length < MAX_TEMPLATES * 2) {
      p.templates.push({ id: mined.id, template: mined.template, count: 1 });
    }
    p.templates.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1));
    p.title = titleOf(p, p.templates[0]?.template ?? '');
    const grown = growthEvent(p, versions, vkey, lifecycle, at);
    if (grown) events.push(grown);
    for (const e of events) if (e.units.length === 0) e.units = [...p.sample];
    changed.add(p.id);
    return { problemId: p.id, events };
  }

  function tick(nowMs: number): ProblemEvent[] {
    const events: ProblemEvent[] = [];
    for (const p of problems.values()) {
      if (p.merged_into) continue;
      const found = lifecycleEvents(p, versions, lifecycle, nowMs);
      if (found.changed) changed.add(p.id);
      events.push(...found.events);
    }
    return events;
  }

  function mustGet(id: string): Problem {
    const p = problems.get(id);
    if (!p) throw new RangeError(`no problem ${id}`);
    return p;
  }

  return {
    observe,
    tick,
    get: (id) => problems.get(id),
    list: () => [...problems.values()],
    versions: () => Object.fromEntries(versions),
    rates: (id) => versionRates(mustGet(id), versions, lifecycle),
    dismiss(id, reason, atMs) {
      const p = mustGet(id);
      p.dismissed = { reason, at_ms: atMs };
      changed.add(id);
      return p;
    },
    merge(id, intoId, reason, atMs) {
      const p = mustGet(id);
      const into = resolveMerged(intoId);
      if (!into || into.id === id) throw new RangeError(`cannot merge ${id} into ${intoId}`);
      p.merged_into = { id: into.id, reason, at_ms: atMs };
      addOccurrences(into, p);
      for (const u of p.sample) insertSample(into.sample, u);
      changed.add(id);
      changed.add(into.id);
      return p;
    },
    takeChanged() {
      const ids = [...changed];
      changed.clear();
      return ids;
    },
    state: () => ({
      problems: [...problems.values()].map((p) => structuredClone(p)),
      miner: miner.state(),
      versions: Object.fromEntries(versions),
      recent_units: [...recent],
    }),
  };
}
