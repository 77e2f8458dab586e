import type { Problem } from '../../../shared/engines/problems/index.ts';
import type { Review } from '../../../shared/engines/review/index.ts';

// A check proposed from a problem: what generate_check is asked to write (from the problem's
// signature and templates), and the labels its try is scored against. The labels are the problem's
// own evidence: a unit in its sample should fail the new check, a recent unit of the same agent
// that failed nothing should pass, and a person's review of one of the problem's units wins over
// both. Pure: the route gathers the units and reviews.

/** Templates quoted in the description, at most. */
const TEMPLATES = 5;
const REVIEWER = 'problem-labels';

/** A check name for the problem: `problem_` and its id, as a check name may be written. */
export function proposedCheckName(problemId: string): string {
  return `problem_${problemId.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 100);
}

/** What the problem is, for the model writing the check. Text from traces is JSON-quoted. */
export function proposalDescription(p: Pick<Problem, 'title' | 'cause' | 'agent' | 'tool' | 'error_class' | 'shape' | 'templates'>): string {
  const q = (s: string): string => JSON.stringify(s);
  const facts = [
    `Cause: ${p.cause}.`,
    p.agent ? `Agent: ${q(p.agent)}.` : null,
    p.tool ? `Tool: ${q(p.tool)}${p.error_class ? `, failing with ${q(p.error_class)}` : ''}.` : null,
    p.shape ? `Shape: ${q(p.shape)} (a loop's cycle of tools, or a hand-off from>to).` : null,
  ].filter((f): f is string => f !== null);
  const templates = p.templates.slice(0, TEMPLATES).map((t) => `- ${q(t.template)} (seen ${t.count} times)`);
  return [
    `Fail (return False) when the run shows this recurring problem, pass (return True) otherwise.`,
    `The problem: ${q(p.title)}. ${facts.join(' ')}`,
    templates.length > 0 ? `Messages seen with it (<*> marks a part that varies):\n${templates.join('\n')}` : null,
    'Read the run’s tool calls and their results, its errors and its messages.',
  ]
    .filter((s): s is string => s !== null)
    .join('\n');
}

/** A person's pass/fail of a unit from their review of a check's verdict; null when the review has no pass/fail. */
function humanPassed(r: Pick<Review, 'check_passed' | 'agrees'>): boolean | null {
  if (r.check_passed === null) return null;
  return r.agrees ? r.check_passed : !r.check_passed;
}

export interface ProposalLabels {
  /** As tryCheck takes them: one per unit, for the proposed check, its verdict the label. */
  reviews: Review[];
  counts: { reviewed: number; in_problem: number; contrast: number };
}

/**
 * The labelled units of a proposal: `sample` (the problem's units: fail, unless a person's review
 * of `reviewed` says the unit passed) and `contrast` (should pass).
 */
export function proposalLabels(input: { project: string; check: string; sample: readonly string[]; reviewed: readonly Review[]; contrast: readonly string[]; nowMs: number }): ProposalLabels {
  const byUnit = new Map<string, boolean>();
  for (const r of [...input.reviewed].sort((a, b) => a.created_at_ms - b.created_at_ms)) {
    const passed = humanPassed(r);
    if (passed !== null && input.sample.includes(r.unit_id)) byUnit.set(r.unit_id, passed);
  }
  const label = (unitId: string, passed: boolean, why: string): Review => ({
    project: input.project,
    unit_id: unitId,
    unit_revision: 1,
    check: input.check,
    check_version: 'labels',
    check_passed: passed,
    check_value: passed ? 1 : 0,
    agrees: true,
    verdict_value: null,
    expected: null,
    reviewer: REVIEWER,
    note: why,
    labels: [],
    queue_id: null,
    created_at_ms: input.nowMs,
    revision: 1,
  });
  const reviews: Review[] = [];
  let reviewed = 0;
  for (const id of input.sample) {
    const byPerson = byUnit.get(id);
    if (byPerson !== undefined) reviewed += 1;
    reviews.push(byPerson !== undefined ? label(id, byPerson, 'a person reviewed it') : label(id, false, 'in the problem'));
  }
  const inSample = new Set(input.sample);
  const contrast = input.contrast.filter((id) => !inSample.has(id));
  for (const id of contrast) reviews.push(label(id, true, 'a recent unit of the agent that failed nothing'));
  return { reviews, counts: { reviewed, in_problem: input.sample.length - reviewed, contrast: contrast.length } };
}
