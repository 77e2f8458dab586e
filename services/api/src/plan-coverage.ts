import type { Store, UnitSummary } from '../../../shared/adapters/store/index.ts';
import { describeNoChecks, planUnit, type PlanSubject, type ScoringPlan } from '../../../shared/engines/monitors/index.ts';

// Which agents seen lately a plan scores: the recent units of each agent and kind run through the
// scorer's own decision (planUnit), so "left without checks" is what the scorer would do.

/** Agents seen within this long are looked at. */
const COVERAGE_WINDOW_MS = 7 * 24 * 3_600_000;
/** The busiest agents per kind of unit looked at (a page, not a report). */
const MAX_AGENTS = 50;
/** The newest units of each agent and kind the plan is tried on. */
const UNITS_PER_AGENT = 20;

export interface AgentCoverage {
  agent: string | null;
  unit_kind: 'trace' | 'session';
  /** Units of this agent and kind that ended in the window. */
  units: number;
  /** Of its newest units, how many were tried, and how many of those the plan gives a check. */
  looked_at: number;
  with_checks: number;
  /** Every check the plan runs on the units tried. */
  checks: string[];
  /** Why a tried unit gets no check (the first such unit's reason); null when every one gets one. */
  reason: string | null;
}

/** The units tried for each agent and kind; read once, then any number of plans are tried on them. */
export interface CoverageSample {
  groups: Array<{ agent: string | null; unit_kind: 'trace' | 'session'; units: number; subjects: PlanSubject[] }>;
}

const subjectOf = (u: UnitSummary, attributes: Record<string, string> | undefined): PlanSubject => ({
  unit_id: u.unit_id,
  kind: u.kind === 'session' ? 'session' : 'trace',
  agent_name: u.agent_name,
  agent_version: u.agent_version,
  service: u.service,
  environment: u.environment,
  ...(attributes ? { attributes } : {}),
});

/**
 * The newest units of the busiest agents per kind in the window. Attributes are not in a unit's
 * summary: with `needAttributes` (a monitor filters on them) the units themselves are read.
 */
export async function sampleRecentUnits(store: Store, project: string, nowMs: number, needAttributes: boolean): Promise<CoverageSample> {
  const fromMs = nowMs - COVERAGE_WINDOW_MS;
  const groups: CoverageSample['groups'] = [];
  for (const kind of ['trace', 'session'] as const) {
    const rows = await store.unitMetrics({ project, metric: 'volume', groupBy: 'agent', unitKind: kind, fromMs, toMs: nowMs + 1, limit: MAX_AGENTS });
    for (const row of rows) {
      if (row.units === 0) continue;
      const listed = await store.listUnits({ project, unitKind: kind, fromMs, toMs: nowMs + 1, limit: row.group === null ? 200 : UNITS_PER_AGENT, ...(row.group !== null ? { agent: row.group } : {}) });
      const mine = listed.filter((u) => u.agent_name === row.group).slice(0, UNITS_PER_AGENT);
      const full = needAttributes && mine.length > 0 ? await store.getUnits(mine.map((u) => u.unit_id), project) : null;
      groups.push({ agent: row.group, unit_kind: kind, units: row.units, subjects: mine.map((u) => subjectOf(u, full?.get(u.unit_id)?.attributes)) });
    }
  }
  return { groups };
}

export const needsAttributes = (plan: ScoringPlan): boolean => plan.monitors.some((m) => Object.keys(m.filters.attributes ?? {}).length > 0);

/** The plan tried on each group's units. */
export function coverage(plan: ScoringPlan, sample: CoverageSample): AgentCoverage[] {
  return sample.groups.map((g) => {
    const checks = new Set<string>();
    let withChecks = 0;
    let reason: string | null = null;
    for (const subject of g.subjects) {
      const decided = planUnit(plan, subject);
      if (decided.checks.length > 0) withChecks += 1;
      for (const c of decided.checks) checks.add(c.name);
      if (decided.reason && reason === null) reason = describeNoChecks(decided.reason);
    }
    return { agent: g.agent, unit_kind: g.unit_kind, units: g.units, looked_at: g.subjects.length, with_checks: withChecks, checks: [...checks].sort(), reason };
  });
}

/** Agents (and kinds) none of whose tried units the plan gives a check. */
export const unscored = (rows: readonly AgentCoverage[]): AgentCoverage[] => rows.filter((r) => r.looked_at > 0 && r.with_checks === 0);
