import type { Score, Unit } from '../../contracts/schemas/index.ts';
import { errorClassOf } from './error-class.ts';
import { loopShapeOf, unreturnedHandoffOf, type LoopShape } from './run-shape.ts';

/** What a unit's failure is keyed by: the first of these that the unit shows, in this order. */
type CauseKind = 'tool_error' | 'loop' | 'handoff_unreturned' | 'unit_error' | 'check';

/** Where in the run it went wrong: the agent and the index of the step (in the unit's steps or tool calls). */
interface FailurePoint {
  agent: string | null;
  step: number;
}

/**
 * A failure's deterministic signature. `key` is what groups failures into one problem; the other
 * fields describe it. Text is kept only as its masked form (`text`), mined into a template by the book.
 */
export interface FailureSignature {
  cause: CauseKind;
  agent: string | null;
  /** Failing checks as `check:fail` or `check:error`, sorted. */
  checks: string[];
  tool: string | null;
  errorClass: string | null;
  loop: LoopShape | null;
  /** For a hand-off never returned: `from>to`. */
  handoff: string | null;
  point: FailurePoint | null;
  /** The text reduced to a template: the tool's error, the unit's error, or the failing check's explanation. */
  text: string;
}

/** The parts of a unit a signature reads. */
export type FailureUnit = Pick<Unit, 'unit_id' | 'agent_name' | 'agent_version' | 'end_time_ms' | 'errors' | 'tool_calls'> & Partial<Pick<Unit, 'steps' | 'project'>>;

export type FailureScore = Pick<Score, 'check' | 'status' | 'passed' | 'explanation' | 'error'>;

/** A failed verdict: a pass/fail check that failed, or a check that errored (`not_run` is not a verdict). */
function verdictOf(score: FailureScore): 'fail' | 'error' | null {
  if (score.status === 'error') return 'error';
  if (score.status === 'ok' && score.passed === false) return 'fail';
  return null;
}

/** Whether the unit failed at all: a failed or errored check, or an error recorded on the run. */
export function isFailure(unit: FailureUnit, scores: readonly FailureScore[]): boolean {
  return unit.errors.length > 0 || scores.some((s) => verdictOf(s) !== null);
}

function byName(a: FailureScore, b: FailureScore): number {
  return a.check < b.check ? -1 : a.check > b.check ? 1 : 0;
}

function firstFailingTool(unit: FailureUnit): { name: string; error: string; point: FailurePoint } | null {
  const steps = unit.steps ?? [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.type === 'tool' && s.status === 'error') {
      const call = unit.tool_calls.find((c) => c.id === s.call_id);
      return { name: s.name, error: s.error ?? call?.error ?? call?.result ?? '', point: { agent: s.agent, step: i } };
    }
  }
  const index = unit.tool_calls.findIndex((c) => c.error !== null);
  if (index < 0) return null;
  const call = unit.tool_calls[index];
  return { name: call.name, error: call.error ?? '', point: { agent: unit.agent_name, step: index } };
}

/**
 * The signature of a failed unit. The cause is the first the run shows of: a failing tool call
 * (where the run went wrong), a loop of successful calls, a hand-off never returned, an error on
 * the run, and else the failing check itself with its explanation.
 */
export function signatureOf(unit: FailureUnit, scores: readonly FailureScore[]): FailureSignature {
  const failing = scores.filter((s) => verdictOf(s) !== null).sort(byName);
  const checks = failing.map((s) => `${s.check}:${verdictOf(s)}`);
  const base = { agent: unit.agent_name, checks, tool: null, errorClass: null, loop: null, handoff: null, point: null };
  const tool = firstFailingTool(unit);
  if (tool) return { ...base, cause: 'tool_error', tool: tool.name, errorClass: errorClassOf(tool.error), point: tool.point, text: tool.error };
  const loop = loopShapeOf(unit);
  if (loop) return { ...base, cause: 'loop', tool: loop.cycle[0] ?? null, loop, point: { agent: loop.agent, step: loop.start }, text: `loop ${loop.cycle.join(' > ')}` };
  const handoff = unreturnedHandoffOf(unit);
  if (handoff) return { ...base, cause: 'handoff_unreturned', handoff: `${handoff.from}>${handoff.to}`, point: { agent: handoff.from, step: handoff.step }, text: `hand-off ${handoff.from} > ${handoff.to} never returned` };
  const error = unit.errors[0];
  if (error) return { ...base, cause: 'unit_error', errorClass: errorClassOf(`${error.type ?? ''} ${error.message}`), text: error.message };
  const first = failing[0];
  const text = first ? (verdictOf(first) === 'error' ? (first.error ?? first.explanation) : first.explanation) : '';
  return { ...base, cause: 'check', text };
}

/**
 * The grouping key of a signature, given the template its text was mined into. Structural causes
 * are keyed by what they are (tool and error class, loop cycle, hand-off), so every wording of one
 * outage is one problem; a failure only a check sees is keyed by the check, its verdict and its
 * explanation's template.
 */
export function groupingKey(sig: FailureSignature, templateId: string): string {
  const agent = sig.agent ?? '';
  switch (sig.cause) {
    case 'tool_error':
      return ['tool_error', agent, sig.tool, sig.errorClass].join('\u0000');
    case 'loop':
      return ['loop', agent, sig.loop!.cycle.join('>')].join('\u0000');
    case 'handoff_unreturned':
      return ['handoff_unreturned', agent, sig.handoff].join('\u0000');
    case 'unit_error':
      return ['unit_error', agent, sig.errorClass, templateId].join('\u0000');
    case 'check':
      return ['check', agent, sig.checks[0] ?? '', templateId].join('\u0000');
  }
}
