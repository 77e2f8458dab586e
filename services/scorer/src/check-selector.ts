import { checkInMode, type CheckDefinition, type CheckRegistry, type JudgeClient, type JudgeMode, type RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { withBudget, type PriceTable } from '../../../shared/engines/judge/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { DOC_KINDS, docsVersion, listMonitors, listUserChecks, planUnit, scoringPlan, type Monitor, type ScoringDefaults } from '../../../shared/engines/monitors/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import type { SelectedCheck } from './score-unit.ts';

export interface CheckSelectorOptions {
  store: QueryStore;
  /** The catalog plus the definitions file: every project's registry starts from it. */
  createRegistry: () => CheckRegistry;
  /** Monitors of the YAML file, for every project. */
  fileMonitors: readonly Monitor[];
  /** The default monitor (no monitor for the unit's project): checks on trace and on session units. */
  defaultChecks: ScoringDefaults;
  judge: JudgeClient | null;
  prices: PriceTable;
  pollMs: number;
  log: Logger;
  now: () => number;
}

export interface CheckSelector {
  start(): Promise<void>;
  shutdown(): Promise<void>;
  /** Which checks run on this unit, each with the judge it may use. */
  select(unit: Unit): SelectedCheck[];
  /** Reads the store now (tests and the backfill; the poll does it every `pollMs`). */
  refresh(): Promise<void>;
  /** The current version of a check in the unit's project (user checks first, then the catalog). */
  resolve(project: string, name: string): RunnableCheck | undefined;
}

interface Snapshot {
  monitorsByProject: Map<string, Monitor[]>;
  registries: Map<string, CheckRegistry>;
}

const projectOf = (unit: Unit): string => unit.project ?? 'default';

/**
 * Which checks run on which units, from the monitors and users' checks in the store (polled by
 * version: a change reaches every running scorer within `pollMs`, without a restart) and the YAML
 * file. A unit whose project has no monitor gets the default checks (`TRACECHECK_CHECKS` on traces,
 * `TRACECHECK_SESSION_CHECKS` on sessions), as before monitors existed. A monitor's budget wraps
 * the shared judge; the wrapper (and its spend) lives as long as the budget is unchanged.
 */
export function createCheckSelector(options: CheckSelectorOptions): CheckSelector {
  const log = options.log.child({ component: 'scorer.checks' });
  const base = options.createRegistry();
  let snapshot: Snapshot = { monitorsByProject: new Map(), registries: new Map() };
  let version: string | null = null;
  const budgets = new Map<string, { key: string; judge: JudgeClient }>();
  let timer: NodeJS.Timeout | null = null;
  let polling: Promise<void> = Promise.resolve();
  const invalid = (doc: { kind: string; id: string }, problems: string): void => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored document does not parse; skipped');

  async function refresh(): Promise<void> {
    const next = await docsVersion(options.store, [DOC_KINDS.monitor, DOC_KINDS.check]);
    if (next === version) return;
    const [monitors, checks] = await Promise.all([listMonitors(options.store, invalid), listUserChecks(options.store, invalid)]);
    const registries = new Map<string, CheckRegistry>();
    for (const { project, check } of checks.sort((a, b) => a.updatedAtMs - b.updatedAtMs)) {
      let registry = registries.get(project);
      if (!registry) registries.set(project, (registry = options.createRegistry()));
      try {
        for (const v of check.versions) registry.createOrUpdateCheck(v.definition as unknown as CheckDefinition);
      } catch (err) {
        log.warn({ err, project, check: check.name }, 'stored user check does not build; skipped');
      }
    }
    const monitorsByProject = new Map<string, Monitor[]>();
    for (const m of monitors) monitorsByProject.set(m.project, [...(monitorsByProject.get(m.project) ?? []), m]);
    snapshot = { monitorsByProject, registries };
    inMode.clear();
    version = next;
    log.info({ monitors: monitors.length, userChecks: checks.length }, 'monitors and checks loaded');
  }

  function resolve(project: string, name: string): RunnableCheck | undefined {
    return (snapshot.registries.get(project) ?? base).get(name);
  }

  // A monitor's mode makes another version of the check (its check_version says which mode scored).
  const inMode = new Map<string, RunnableCheck | null>();
  function resolveInMode(project: string, name: string, mode: JudgeMode, monitor: string): RunnableCheck | undefined {
    const registry = snapshot.registries.get(project) ?? base;
    const current = registry.get(name);
    if (!current) return undefined;
    const key = `${project}\0${name}\0${current.version}\0${mode}`;
    if (!inMode.has(key)) {
      try {
        inMode.set(key, checkInMode(registry, name, mode));
      } catch (err) {
        log.warn({ err, project, monitor, check: name, mode }, 'monitor sets a mode the check does not have; skipped');
        inMode.set(key, null);
      }
    }
    return inMode.get(key) ?? undefined;
  }

  function judgeFor(project: string, monitor: Monitor): JudgeClient | null {
    if (!options.judge || !monitor.budget) return options.judge;
    const id = `${project}/${monitor.name}`;
    const key = JSON.stringify(monitor.budget);
    const found = budgets.get(id);
    if (found?.key === key) return found.judge;
    const judge = withBudget(
      options.judge,
      { ...(monitor.budget.calls_per_minute !== undefined ? { callsPerMinute: monitor.budget.calls_per_minute } : {}), ...(monitor.budget.usd_per_day !== undefined ? { usdPerDay: monitor.budget.usd_per_day } : {}) },
      { owner: `monitor "${monitor.name}"`, prices: options.prices, now: options.now },
    );
    budgets.set(id, { key, judge });
    return judge;
  }

  function select(unit: Unit): SelectedCheck[] {
    const project = projectOf(unit);
    const plan = scoringPlan(project, snapshot.monitorsByProject.get(project) ?? [], options.fileMonitors, options.defaultChecks);
    const out: SelectedCheck[] = [];
    for (const { name, monitor, mode } of planUnit(plan, unit).checks) {
      const check = mode && monitor ? resolveInMode(project, name, mode, monitor.name) : resolve(project, name);
      if (!check) {
        if (monitor) log.warn({ monitor: monitor.name, check: name, project }, 'monitor names an unknown check; skipped');
        continue;
      }
      out.push({ check, judge: monitor ? judgeFor(project, monitor) : options.judge, monitor: monitor?.name ?? null });
    }
    return out;
  }

  let inFlight = false;
  // One read at a time: a slow store skips ticks rather than queueing them.
  const poll = (): void => {
    if (inFlight) return;
    inFlight = true;
    polling = refresh()
      .catch((err: unknown) => log.warn({ err }, 'reading monitors and checks failed; keeping the last ones'))
      .finally(() => {
        inFlight = false;
      });
  };

  return {
    start: async () => {
      await refresh();
      timer = setInterval(poll, options.pollMs);
    },
    shutdown: async () => {
      if (timer) clearInterval(timer);
      timer = null;
      await polling;
    },
    select,
    refresh,
    resolve,
  };
}
