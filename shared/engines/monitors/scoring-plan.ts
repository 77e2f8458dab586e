import type { Unit } from '../../contracts/schemas/index.ts';
import { isSampled, matchesFilters, type Monitor, type PlanSubject } from './monitor.ts';

// The scoring plan: which checks run on which units. The scorer's selection, the checks page, the
// unit page and GET /api/v1/scoring-plan all decide through `planUnit`, so what is shown is what
// runs. Pure: the caller reads the monitors and the configured defaults.

/** The checks a project without monitors runs (`TRACECHECK_CHECKS`, `TRACECHECK_SESSION_CHECKS`). */
export interface ScoringDefaults {
  trace: readonly string[];
  session: readonly string[];
}

export interface ScoringPlan {
  project: string;
  /** `defaults` while the project has no monitor (stored or from the file); once it has one, monitors decide. */
  mode: 'defaults' | 'monitors';
  defaults: ScoringDefaults;
  /** The project's stored monitors, then the file's (project `*`), in the order the scorer tries them. */
  monitors: readonly Monitor[];
}

export function scoringPlan(project: string, stored: readonly Monitor[], fileMonitors: readonly Monitor[], defaults: ScoringDefaults): ScoringPlan {
  const monitors = [...stored.filter((m) => m.project === project), ...fileMonitors];
  return { project, mode: monitors.length === 0 ? 'defaults' : 'monitors', defaults, monitors };
}

/** A check the plan runs on a unit, and the monitor that brings it (null: the defaults). */
interface PlannedCheck {
  name: string;
  monitor: Monitor | null;
  /** The mode that monitor sets for it; absent: the check's own. */
  mode?: NonNullable<Monitor['modes']>[string];
}

/** Why the plan runs no check on a unit. */
export type NoCheckReason =
  /** A simulation's own record of its dialog: stored, never scored. */
  | { kind: 'simulation_record' }
  /** No monitor, and the defaults name no check for this kind of unit. */
  | { kind: 'no_default_checks'; unit_kind: Unit['kind'] }
  /** Monitors decide, and none of their filters match (`disabled`: those that would match but are off). */
  | { kind: 'no_monitor_matches'; monitors: string[]; disabled: string[] }
  /** Monitors match, and the unit is outside every one's sample (a hash of its id: it stays out). */
  | { kind: 'sampled_out'; monitors: Array<{ name: string; sample_rate: number }> };

export interface UnitPlan {
  /** In the order they run, each name once (the first monitor that names it brings it). */
  checks: PlannedCheck[];
  /** Set exactly when `checks` is empty. */
  reason: NoCheckReason | null;
}

export function planUnit(plan: ScoringPlan, unit: PlanSubject): UnitPlan {
  if (unit.simulation_record) return { checks: [], reason: { kind: 'simulation_record' } };
  if (plan.mode === 'defaults') {
    const names = unit.kind === 'session' ? plan.defaults.session : plan.defaults.trace;
    const checks = [...new Set(names)].map((name) => ({ name, monitor: null }));
    return { checks, reason: checks.length === 0 ? { kind: 'no_default_checks', unit_kind: unit.kind } : null };
  }
  const checks = new Map<string, PlannedCheck>();
  const disabled: string[] = [];
  const sampledOut: Array<{ name: string; sample_rate: number }> = [];
  for (const monitor of plan.monitors) {
    if (!matchesFilters(unit, monitor.filters)) continue;
    if (!monitor.enabled) {
      disabled.push(monitor.name);
      continue;
    }
    if (!isSampled(unit.unit_id, monitor.sample_rate)) {
      sampledOut.push({ name: monitor.name, sample_rate: monitor.sample_rate });
      continue;
    }
    for (const name of monitor.checks) {
      const mode = monitor.modes?.[name];
      if (!checks.has(name)) checks.set(name, mode ? { name, monitor, mode } : { name, monitor });
    }
  }
  if (checks.size > 0) return { checks: [...checks.values()], reason: null };
  if (sampledOut.length > 0) return { checks: [], reason: { kind: 'sampled_out', monitors: sampledOut } };
  return { checks: [], reason: { kind: 'no_monitor_matches', monitors: plan.monitors.map((m) => m.name), disabled } };
}

const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;

/** One sentence for people: why nothing will score this unit under the current plan. */
export function describeNoChecks(reason: NoCheckReason): string {
  switch (reason.kind) {
    case 'simulation_record':
      return "This is a simulation's own record of its dialog: it is stored, not scored.";
    case 'no_default_checks':
      return `No check runs on ${reason.unit_kind} units: the project has no monitor and ${reason.unit_kind === 'session' ? 'TRACECHECK_SESSION_CHECKS' : 'TRACECHECK_CHECKS'} is empty.`;
    case 'no_monitor_matches':
      return `No monitor matches this unit, so no check runs on it: once a project has monitors, they decide. Monitors: ${reason.monitors.join(', ')}${
        reason.disabled.length > 0 ? ` (${reason.disabled.join(', ')} would match but ${reason.disabled.length === 1 ? 'is' : 'are'} disabled)` : ''
      }.`;
    case 'sampled_out':
      return `Sampled out: ${reason.monitors.map((m) => `monitor ${m.name} scores ${percent(m.sample_rate)} of the units it matches`).join('; ')}, and this unit is outside the sample (chosen by a hash of its id, so it stays out).`;
  }
}

/** The plan once `monitor` is saved: it replaces the project's monitor of its name, or joins the project's. */
export function withMonitor(plan: ScoringPlan, monitor: Monitor): ScoringPlan {
  const own = plan.monitors.filter((m) => m.project !== '*' && m.name !== monitor.name);
  const file = plan.monitors.filter((m) => m.project === '*');
  return scoringPlan(plan.project, [...own, { ...monitor, project: plan.project }], file, plan.defaults);
}
