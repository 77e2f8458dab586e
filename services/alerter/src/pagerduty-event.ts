import type { AlertPayload, PagerDutyTarget } from '../../../shared/engines/alerts/index.ts';

/** What PagerDuty's Events API v2 takes (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/). */
export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    timestamp: string;
    component?: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  links?: Array<{ href: string; text: string }>;
  client: string;
}

/** PagerDuty refuses a summary over 1,024 characters and a dedup key over 255. */
const MAX_SUMMARY = 1_024;
const MAX_DEDUP_KEY = 255;

/**
 * A firing (or a reminder) is a `trigger`, a recovery a `resolve`, both with the episode's dedup
 * key: PagerDuty opens one incident per episode, folds reminders into it, and closes it on the
 * resolve. Severity: the payload's level where the rule has levels, else `critical` (an alert
 * rule is something a person chose to be woken for).
 */
export function pagerDutyEvent(target: PagerDutyTarget, payload: AlertPayload, dedupKey: string, unitLink?: (unitId: string) => string): PagerDutyEvent {
  const dedup_key = dedupKey.slice(0, MAX_DEDUP_KEY);
  if (payload.state === 'resolved') return { routing_key: target.routing_key, event_action: 'resolve', dedup_key, client: 'tracecheck' };
  const level = payload.level;
  const summary = payload.summary.length > MAX_SUMMARY ? `${payload.summary.slice(0, MAX_SUMMARY - 1)}…` : payload.summary;
  const details: Record<string, unknown> = { rule: payload.rule, kind: payload.kind, value: payload.value, window: payload.window, fired_at: payload.fired_at, units: payload.units };
  if (payload.threshold !== undefined) details.threshold = payload.threshold;
  if (payload.level !== undefined) details.level = payload.level;
  if (payload.p_value !== undefined) details.p_value = payload.p_value;
  if (payload.baseline) details.baseline = payload.baseline;
  if (payload.candidate) details.candidate = payload.candidate;
  if (payload.problem) details.problem = payload.problem;
  return {
    routing_key: target.routing_key,
    event_action: 'trigger',
    dedup_key,
    payload: {
      summary,
      source: 'tracecheck',
      severity: level === 'warning' ? 'warning' : 'critical',
      timestamp: payload.fired_at,
      ...(payload.check !== null ? { component: payload.check } : {}),
      class: payload.kind,
      custom_details: details,
    },
    ...(unitLink && payload.units.length > 0 ? { links: payload.units.slice(0, 5).map((u) => ({ href: unitLink(u), text: `Failing unit ${u}` })) } : {}),
    client: 'tracecheck',
  };
}
