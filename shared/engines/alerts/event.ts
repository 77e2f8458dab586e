import { z } from 'zod';
import { AlertFiltersSchema } from './rule.ts';

/** One side of a regression as notifications report it: failure rate with its Wilson 95% interval. */
const AlertSideSchema = z.object({
  filters: AlertFiltersSchema,
  /** Scores with a pass/fail verdict. */
  n: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  /** failed / n; null when n is 0. */
  failure_rate: z.number().nullable(),
  interval: z.tuple([z.number(), z.number()]),
});
export type AlertSide = z.infer<typeof AlertSideSchema>;

const ProblemSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  state: z.enum(['new', 'ongoing', 'resolved', 'regressed']),
  cause: z.string(),
  agent: z.string().nullable(),
  /** Units with it, all of them (`units` holds a sample of at most 20). */
  count: z.int().nonnegative(),
  first_seen: z.string(),
  last_seen: z.string(),
  /** problem_growing: the version it grew in, and the version before it. */
  version: z.string().optional(),
  baseline: z.string().optional(),
});

/** The webhook body, and what the history keeps of every notification. */
export const AlertPayloadSchema = z.object({
  /** The rule's name. */
  rule: z.string(),
  state: z.enum(['firing', 'resolved']),
  /** The rule's kind; for a `problem` rule, the state change it delivers. */
  kind: z.enum(['threshold', 'regression', 'judge_health', 'no_data', 'agreement', 'metric_threshold', 'metric_regression', 'problem_new', 'problem_regressed', 'problem_growing']),
  /** null for a judge-health rule over every judge check. */
  check: z.string().nullable(),
  /** One plain sentence. */
  summary: z.string(),
  baseline: AlertSideSchema.optional(),
  candidate: AlertSideSchema.optional(),
  /**
   * threshold: the pass rate or mean; regression: the candidate's failure rate; judge_health: the
   * error rate, or the mean lag in ms when only a lag limit is set or the lag is what broke;
   * no_data: 0 when no unit arrived in the window, 1 when at least one did; metric_threshold: the
   * rule's stat of its metric; metric_regression: the candidate's mean.
   */
  value: z.number().nullable(),
  threshold: z.number().optional(),
  /** metric_threshold, firing: the level reached (PagerDuty's severity, the email's subject). */
  level: z.enum(['warning', 'critical']).optional(),
  p_value: z.number().optional(),
  window: z.string(),
  /** Ids of failing units (at most 20); empty on recovery. */
  units: z.array(z.string()).max(20),
  /** When the rule fired (ISO 8601); on recovery, when the episode began. For a problem, when its state changed. */
  fired_at: z.string(),
  /** Problem kinds: the problem as it stands at delivery (its units: `units`, a bounded sample, and `count`, all of them). */
  problem: ProblemSummarySchema.optional(),
});
export type AlertPayload = z.infer<typeof AlertPayloadSchema>;

export const DeliverySchema = z.object({
  type: z.enum(['webhook', 'slack', 'pagerduty', 'email']),
  /** The target's URL, or `mailto:` and its recipients for email. */
  url: z.string(),
  outcome: z.enum(['delivered', 'failed']),
  attempts: z.int().nonnegative(),
  /** The last HTTP status, when there was an answer. */
  status: z.int().optional(),
  error: z.string().optional(),
  at_ms: z.number(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

/** One entry of the history: a notification (firing, reminder, resolved) and how its deliveries went. */
export const AlertEventSchema = z.object({
  id: z.string(),
  project: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  state: z.enum(['firing', 'resolved', 'reminder']),
  payload: AlertPayloadSchema,
  /** `pending` until every target was tried; `none` without targets. */
  delivery_status: z.enum(['pending', 'done', 'none']),
  deliveries: z.array(DeliverySchema),
  created_at_ms: z.number(),
});
export type AlertEvent = z.infer<typeof AlertEventSchema>;

/** A rule's evaluation state, kept so that a restart neither forgets nor repeats a firing. */
export const AlertStateSchema = z.object({
  rule_id: z.string(),
  state: z.enum(['ok', 'pending', 'firing']),
  /** Bad evaluations in a row (toward firing). */
  consecutive_bad: z.int().nonnegative(),
  /** Good evaluations in a row while firing (toward recovery). */
  consecutive_good: z.int().nonnegative(),
  fired_at_ms: z.number().nullable(),
  last_notified_at_ms: z.number().nullable(),
  last_value: z.number().nullable(),
  last_evaluated_at_ms: z.number().nullable(),
  /** Why the last evaluation failed (e.g. a store timeout), else null. */
  last_error: z.string().nullable(),
  /** metric_threshold: the level it fires at (null while ok), and the level a streak is heading to. */
  level: z.enum(['warning', 'critical']).nullable().optional(),
  pending_level: z.enum(['ok', 'warning', 'critical']).nullable().optional(),
});
export type AlertState = z.infer<typeof AlertStateSchema>;

export function initialAlertState(ruleId: string): AlertState {
  return { rule_id: ruleId, state: 'ok', consecutive_bad: 0, consecutive_good: 0, fired_at_ms: null, last_notified_at_ms: null, last_value: null, last_evaluated_at_ms: null, last_error: null };
}
