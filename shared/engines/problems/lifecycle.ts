import { sequentialRegression, wilsonInterval } from '../stats/index.ts';
import { splitVersionKey, type Problem, type ProblemEvent } from './problem.ts';
import type { VersionCount } from './book.ts';

export interface LifecycleOptions {
  /** No occurrence for this long: resolved. */
  resolveAfterMs: number;
  /** A new or regressed problem is ongoing after this long. */
  newForMs: number;
  /** A newer version with at least this many units and no occurrence resolves it (see lifecycleEvents). */
  minVersionUnits: number;
  /** The growth test: the regression alerts' always-valid test, its alpha and minimum units per arm. */
  alpha: number;
  minSamples: number;
}

/**
 * Occurrences in a version before it can be called growing. The test's normal approximation takes a
 * version where the problem never occurred as a rate known to be 0, so one occurrence in the next
 * version already "fires" (p ≈ 0.002 in bench:problems); by chance alone, five all landing in the
 * newer of two equal-sized versions happens 3% of the time.
 */
const MIN_GROWTH_OCCURRENCES = 5;

/** One agent version's rate of a problem, with its Wilson 95% interval, and the test against the version before. */
export interface VersionRate {
  version: string | null;
  units: number;
  occurrences: number;
  rate: number;
  interval: [number, number];
  /** Against the version seen before this one (null for the first). */
  baseline: string | null;
  p_value: number | null;
  /** Significantly more frequent than in the baseline, by the always-valid test. */
  growing: boolean;
}

/** The problem's agent's versions, oldest first by their first unit. */
function agentVersions(p: Problem, versions: ReadonlyMap<string, VersionCount>): Array<[string, VersionCount]> {
  return [...versions.entries()]
    .filter(([k]) => splitVersionKey(k).agent === p.agent)
    .sort((a, b) => a[1].first_seen_ms - b[1].first_seen_ms || (a[0] < b[0] ? -1 : 1));
}

/**
 * Per version of the problem's agent: its rate with an interval and, against the version before
 * it, the always-valid test the regression alerts use (sequentialRegression; "pass" = a unit
 * without the problem), so the answer stays valid however often it is looked at.
 */
export function versionRates(p: Problem, versions: ReadonlyMap<string, VersionCount>, options: Pick<LifecycleOptions, 'alpha' | 'minSamples'>): VersionRate[] {
  const ordered = agentVersions(p, versions);
  return ordered.map(([key, v], i) => {
    const occurrences = Math.min(p.by_version[key] ?? 0, v.units);
    const w = wilsonInterval(occurrences, v.units);
    const prev = i > 0 ? ordered[i - 1] : null;
    let pValue: number | null = null;
    let growing = false;
    if (prev) {
      const occA = Math.min(p.by_version[prev[0]] ?? 0, prev[1].units);
      const counts = { passedA: prev[1].units - occA, totalA: prev[1].units, passedB: v.units - occurrences, totalB: v.units };
      const decision = sequentialRegression(counts, options);
      pValue = decision.pValue;
      growing = decision.fire && occurrences >= MIN_GROWTH_OCCURRENCES;
    }
    return { version: splitVersionKey(key).version, units: v.units, occurrences, rate: w.proportion, interval: [w.lower, w.upper], baseline: prev ? splitVersionKey(prev[0]).version : null, p_value: pValue, growing };
  });
}

/** problem_growing for `vkey` the first time the test fires for it (once per problem and version). */
export function growthEvent(p: Problem, versions: ReadonlyMap<string, VersionCount>, vkey: string, options: LifecycleOptions, atMs: number): ProblemEvent | null {
  if (p.growing_in.includes(vkey)) return null;
  const ordered = agentVersions(p, versions);
  const i = ordered.findIndex(([k]) => k === vkey);
  if (i < 1) return null;
  const [aKey, a] = ordered[i - 1];
  const b = ordered[i][1];
  const occA = Math.min(p.by_version[aKey] ?? 0, a.units);
  const occB = Math.min(p.by_version[vkey] ?? 0, b.units);
  if (occB < MIN_GROWTH_OCCURRENCES) return null;
  const decision = sequentialRegression({ passedA: a.units - occA, totalA: a.units, passedB: b.units - occB, totalB: b.units }, options);
  if (!decision.fire) return null;
  p.growing_in.push(vkey);
  return { kind: 'problem_growing', problem_id: p.id, at_ms: atMs, version: splitVersionKey(vkey).version ?? '', baseline: splitVersionKey(aKey).version ?? '', p_value: decision.pValue, units: [] };
}

/**
 * Time and versions move a problem on: new or regressed → ongoing after newForMs; resolved when
 * it has not occurred for resolveAfterMs, or when a version of its agent newer than every version
 * it lived in has run at least minVersionUnits units, none with it, and it has not occurred since
 * that version's first unit (a canary where the old version still fails does not resolve it).
 */
export function lifecycleEvents(p: Problem, versions: ReadonlyMap<string, VersionCount>, options: LifecycleOptions, nowMs: number): { changed: boolean; events: ProblemEvent[] } {
  const events: ProblemEvent[] = [];
  let changed = false;
  if ((p.state === 'new' || p.state === 'regressed') && nowMs - p.state_since_ms >= options.newForMs) {
    p.state = 'ongoing';
    p.state_since_ms = nowMs;
    changed = true;
  }
  if (p.state !== 'resolved') {
    const ordered = agentVersions(p, versions);
    const livedIn = ordered.filter(([k]) => (p.by_version[k] ?? 0) > 0);
    const newest = Math.max(...livedIn.map(([, v]) => v.first_seen_ms));
    const replacement = ordered.find(([k, v]) => v.first_seen_ms > newest && (p.by_version[k] ?? 0) === 0 && v.units >= options.minVersionUnits && p.last_seen_ms < v.first_seen_ms);
    if (nowMs - p.last_seen_ms >= options.resolveAfterMs || replacement) {
      p.state = 'resolved';
      p.state_since_ms = nowMs;
      changed = true;
      events.push({ kind: 'problem_resolved', problem_id: p.id, at_ms: nowMs, units: [] });
    }
  }
  for (const [k] of agentVersions(p, versions)) {
    const grown = growthEvent(p, versions, k, options, nowMs);
    if (grown) {
      grown.units = [...p.sample];
      events.push(grown);
      changed = true;
    }
  }
  return { changed, events };
}
