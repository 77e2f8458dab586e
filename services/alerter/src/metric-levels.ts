import { parseDuration, type AlertState, type MetricThresholdRule } from '../../../shared/engines/alerts/index.ts';
import type { MetricLevel } from './metric-rules.ts';

export type LevelTransition = 'fire' | 'remind' | 'resolve';

/**
 * The state machine of a rule with levels: ok ⇄ warning ⇄ critical (any move, in either
 * direction). A level is taken after `for_evaluations` evaluations in a row that reach it; every
 * change of level notifies: to warning or critical a `fire` (the episode, hence PagerDuty's dedup
 * key, stays the one begun by the first firing, so a change re-triggers the same incident with the
 * new severity), back to ok a `resolve`. No verdict (`null`: too few values) keeps the level and
 * breaks no streak. `remind_every` repeats the current level while firing. Pure.
 */
export function nextLevelState(rule: MetricThresholdRule, prev: AlertState, observed: MetricLevel | null, value: number | null, nowMs: number): { state: AlertState; transition: LevelTransition | null } {
  const current: MetricLevel = prev.state === 'firing' ? (prev.level ?? 'critical') : 'ok';
  const s: AlertState = { ...prev, last_value: value, last_evaluated_at_ms: nowMs, last_error: null, level: current === 'ok' ? null : current };
  if (observed === null) return remind(rule, prev, s, nowMs);

  if (observed === current) {
    const settled: AlertState = { ...s, consecutive_bad: 0, consecutive_good: 0, pending_level: null, state: current === 'ok' ? 'ok' : 'firing' };
    return current === 'ok' ? { state: settled, transition: null } : remind(rule, prev, settled, nowMs);
  }

  // A streak toward `observed`: consecutive_bad counts toward a firing level, consecutive_good toward ok.
  const streak = (prev.pending_level === observed ? (observed === 'ok' ? prev.consecutive_good : prev.consecutive_bad) : 0) + 1;
  if (streak < rule.for_evaluations) {
    const counting: AlertState = { ...s, pending_level: observed, consecutive_bad: observed === 'ok' ? 0 : streak, consecutive_good: observed === 'ok' ? streak : 0, state: current === 'ok' ? 'pending' : 'firing' };
    return current === 'ok' ? { state: counting, transition: null } : remind(rule, prev, counting, nowMs);
  }
  const moved: AlertState = { ...s, pending_level: null, consecutive_bad: 0, consecutive_good: 0, last_notified_at_ms: nowMs };
  if (observed === 'ok') return { state: { ...moved, state: 'ok', level: null }, transition: 'resolve' };
  return { state: { ...moved, state: 'firing', level: observed, fired_at_ms: current === 'ok' ? nowMs : prev.fired_at_ms }, transition: 'fire' };
}

function remind(rule: MetricThresholdRule, prev: AlertState, s: AlertState, nowMs: number): { state: AlertState; transition: LevelTransition | null } {
  if (s.state !== 'firing' || rule.remind_every === undefined) return { state: s, transition: null };
  if (nowMs - (prev.last_notified_at_ms ?? prev.fired_at_ms ?? nowMs) >= parseDuration(rule.remind_every)) return { state: { ...s, last_notified_at_ms: nowMs }, transition: 'remind' };
  return { state: s, transition: null };
}
