import type { AlertPayload, ProblemRule } from '../../../shared/engines/alerts/index.ts';
import { mainCheck, type Problem, type ProblemEvent } from '../../../shared/engines/problems/index.ts';
import { formatPValue } from './summary.ts';

/** A problem rule has no window to evaluate: the miner's state changes are what it delivers (problem-alerts.ts). */
export function notWindowed(rule: ProblemRule): TypeError {
  return new TypeError(`rule ${rule.id} is a problem rule: it delivers the problem miner's events and is not evaluated over a window`);
}

/** The state changes a problem rule delivers (problem_resolved is not one: nobody is woken for good news). */
export function ruleTakes(rule: ProblemRule, event: ProblemEvent, problem: Pick<Problem, 'agent'> | null): boolean {
  if (event.kind === 'problem_resolved' || !rule.events.includes(event.kind)) return false;
  if (rule.problem_id !== undefined && rule.problem_id !== event.problem_id) return false;
  return rule.agent === undefined || problem?.agent === rule.agent;
}

const MAX_UNITS = 20;

function sentence(event: ProblemEvent, title: string, count: number): string {
  const units = `${count} unit${count === 1 ? '' : 's'}`;
  switch (event.kind) {
    case 'problem_new':
      return `New problem: ${title} (${units} so far).`;
    case 'problem_regressed':
      return `Problem back after it was resolved: ${title} (${units} in all).`;
    case 'problem_growing':
      return `Problem growing in ${event.version ?? '(no version)'} against ${event.baseline ?? '(no version)'} (always-valid ${formatPValue(event.p_value ?? 1)}): ${title} (${units} in all).`;
    case 'problem_resolved':
      return `Problem resolved: ${title}.`;
  }
}

/**
 * The notification of one state change: the problem as it stands now (its title, state and count)
 * and its units, the change's own first, then the problem's sample, at most 20. `problem` is null
 * when its document is gone (retention, a store reset): the change is still told, from the event.
 */
export function problemPayload(rule: ProblemRule, event: ProblemEvent, problem: Problem | null): AlertPayload {
  if (event.kind === 'problem_resolved') throw new TypeError('problem_resolved is not delivered');
  const title = problem?.title ?? `problem ${event.problem_id}`;
  const count = problem?.count ?? event.units.length;
  const payload: AlertPayload = {
    rule: rule.name,
    state: 'firing',
    kind: event.kind,
    check: problem ? mainCheck(problem) : null,
    summary: sentence(event, title, count),
    value: count,
    window: 'stream',
    units: [...new Set([...event.units, ...(problem?.sample ?? [])])].slice(0, MAX_UNITS),
    fired_at: new Date(event.at_ms).toISOString(),
    problem: {
      id: event.problem_id,
      title,
      state: problem?.state ?? (event.kind === 'problem_regressed' ? 'regressed' : 'new'),
      cause: problem?.cause ?? 'unknown',
      agent: problem?.agent ?? null,
      count,
      first_seen: new Date(problem?.first_seen_ms ?? event.at_ms).toISOString(),
      last_seen: new Date(problem?.last_seen_ms ?? event.at_ms).toISOString(),
      ...(event.version !== undefined ? { version: event.version } : {}),
      ...(event.baseline !== undefined ? { baseline: event.baseline } : {}),
    },
  };
  if (event.p_value !== undefined) payload.p_value = event.p_value;
  return payload;
}
