import type { CheckContext, CheckOutcome, CodeRunner, JudgeClient, RunnableCheck } from '../../../shared/engines/checks/contract.ts';
import { recentOutputsKey, runCheck, unitToCheckInput, type RecentOutputs } from '../../../shared/engines/checks/index.ts';
import type { ChatMessage, Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { contentByReferenceReason } from '../../../shared/engines/diagnose/index.ts';
import { outcomeToScore } from './outcome-to-score.ts';

/** One check to run on a unit, with the judge it may use (a monitor's budget wraps the shared one). */
export interface SelectedCheck {
  check: RunnableCheck;
  judge: JudgeClient | null;
  /** The monitor that selected it; null for the default (`TRACECHECK_CHECKS`). */
  monitor: string | null;
}

/** The simulation's own dialog for a unit, or why there is none (it never came within the wait). */
export type SimulationDialog = { messages: ChatMessage[] } | { error: string };

export interface ScoreUnitDeps {
  /** Without `selectChecks`: every unit gets these checks, with `judge`. */
  checks: readonly RunnableCheck[];
  judge: JudgeClient | null;
  /** Which checks run on this unit (monitors: filters, sampling, budgets). */
  selectChecks?: (unit: Unit) => SelectedCheck[];
  judgeUnavailableReason: string | null;
  /** Runs users' code checks in isolation; without it they are scored `not_run`. */
  codeRunner?: CodeRunner;
  /** Waits (bounded) for the simulation record of a unit with a simulation id. */
  simulationDialog?: (unit: Unit) => Promise<SimulationDialog>;
  /** USD of a judge call, from the price table; null when the model has no price. */
  costUsd?: (model: string, inputTokens: number, outputTokens: number) => number | null;
  nowMs: () => number;
  /** The agent's recent outputs, for checks that compare rows (uniqueness); without it they answer not_run. */
  recentOutputs?: RecentOutputs;
  /** Reads back messages recorded by reference (TRACECHECK_CONTENT_REF_ALLOW); without it such units are not_run. */
  fetchDialog?: (unit: Unit) => Promise<{ unit: Unit } | { error: string }>;
}

/** Checks that read the simulation's dialog, and so wait for it. */
const NEEDS_SIMULATION = new Set(['simulation_trace_consistency']);

function selectedChecks(unit: Unit, deps: Pick<ScoreUnitDeps, 'checks' | 'judge' | 'selectChecks'>): SelectedCheck[] {
  return deps.selectChecks ? deps.selectChecks(unit) : deps.checks.map((check) => ({ check, judge: deps.judge, monitor: null }));
}

/** Runs every selected check on the unit, concurrently; never throws (a failing check is an error score). */
export async function scoreUnit(unit: Unit, deps: ScoreUnitDeps): Promise<Score[]> {
  const selected = selectedChecks(unit, deps);
  let simulationError: string | null = null;
  let withDialog = unit;
  if (unit.simulation_id && !unit.simulation_message_history && deps.simulationDialog && selected.some((s) => NEEDS_SIMULATION.has(s.check.name))) {
    const found = await deps.simulationDialog(unit);
    if ('messages' in found) withDialog = { ...unit, simulation_message_history: found.messages };
    else simulationError = found.error;
  }
  // Messages uploaded elsewhere: fetched here, where units are already scored concurrently and a
  // slow fetch (bounded by its timeout) holds one unit, not the assembler's stream of every trace.
  let byReference = contentByReferenceReason(withDialog);
  if (byReference !== null && deps.fetchDialog && selected.length > 0) {
    const fetched = await deps.fetchDialog(withDialog);
    if ('unit' in fetched) {
      withDialog = fetched.unit;
      byReference = null;
    } else byReference = `${byReference}; fetching it failed: ${fetched.error}`;
  }
  const input = unitToCheckInput(withDialog);
  // Row-comparing checks see the window as it was before this unit, which then joins it.
  let batch: CheckContext['batch'];
  if (deps.recentOutputs && selected.some((s) => s.check.comparesRows === true)) {
    const key = recentOutputsKey(unit);
    batch = [input, ...deps.recentOutputs.peers(key, unit.unit_id)];
    deps.recentOutputs.remember(key, unit.unit_id, unit.model_output);
  }
  const project = unit.project ?? 'default';
  return Promise.all(
    selected.map(async ({ check, judge }) => {
      const ctx: CheckContext = {
        // The unit's project takes its turn at the judge (JudgeRequest.share).
        judge: judge ? { complete: (request) => judge.complete({ ...request, share: project }) } : null,
        nowMs: deps.nowMs,
        project,
        ...(deps.judgeUnavailableReason ? { judgeUnavailableReason: deps.judgeUnavailableReason } : {}),
        ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}),
        ...(batch && check.comparesRows ? { batch } : {}),
      };
      const started = performance.now();
      const outcome: CheckOutcome =
        byReference !== null
          ? { status: 'not_run', method: check.kind === 'model' ? 'model' : check.kind === 'code' ? 'code' : 'deterministic', error: byReference }
          : simulationError !== null && NEEDS_SIMULATION.has(check.name)
            ? { status: 'error', method: 'deterministic', error: simulationError }
            : await runCheck(check, input, ctx);
      const cost = outcome.judgeModel && deps.costUsd ? deps.costUsd(outcome.judgeModel, outcome.inputTokens ?? 0, outcome.outputTokens ?? 0) : null;
      return outcomeToScore(unit, check, outcome, performance.now() - started, deps.nowMs(), cost ?? 0);
    }),
  );
}
