import { z } from 'zod';
import { DURATION_PATTERN, durationProblem } from './duration.ts';
import { NotifyTargetSchema } from './targets.ts';
import { UNIT_METRICS } from '../../adapters/store/unit-metrics.ts';

export { NotifyTargetSchema, type NotifyTarget } from './targets.ts';

// These schemas are the API's request and response contracts too: the OpenAPI document is
// generated from them with `z.toJSONSchema`, so they use no transforms (durations stay strings,
// parsed by `parseDuration` where they are used) and cross-field rules are refinements.

const DURATION_HINT = 'a duration such as "30s", "15m", "1h" or "7d"';

const DurationSchema = z
  .string()
  .regex(DURATION_PATTERN, `must be ${DURATION_HINT}`)
  .refine((s) => !DURATION_PATTERN.test(s) || durationProblem(s) === null, { message: 'must be at most 90d' })
  .meta({ description: 'A positive whole number and a unit: ms, s, m, h or d (at most 90d).', examples: ['15m'] });

/** Which scores a rule (or one side of a regression) looks at; all given fields must match. */
export const AlertFiltersSchema = z
  .object({
    agent: z.string().min(1).max(200).optional().meta({ description: 'Matches the agent name.' }),
    agent_version: z.string().min(1).max(200).optional(),
    environment: z.string().min(1).max(200).optional(),
    service: z.string().min(1).max(200).optional(),
    unit_kind: z.enum(['trace', 'session', 'eval']).optional(),
  })
  .strict();
export type AlertFilters = z.infer<typeof AlertFiltersSchema>;

const common = {
  name: z.string().min(1).max(200),
  filters: AlertFiltersSchema.optional(),
  notify: z.array(NotifyTargetSchema).max(10).default([]),
  remind_every: DurationSchema.optional().meta({ description: 'Repeat the notification this often while the rule stays firing.' }),
  enabled: z.boolean().default(true),
};

const checkName = z.string().min(1).max(200);

const ThresholdRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('threshold'),
    check: checkName,
    window: DurationSchema,
    threshold: z.number().meta({ description: 'Fires while the metric is below this (a fraction in [0, 1] for pass_rate).' }),
    metric: z.enum(['pass_rate', 'mean']).default('pass_rate'),
    min_samples: z.int().min(1).default(20),
    for_evaluations: z.int().min(1).max(1_000).default(3),
  })
  .strict();

const RegressionRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('regression'),
    check: checkName,
    baseline: AlertFiltersSchema,
    candidate: AlertFiltersSchema,
    alpha: z.number().gt(0).max(0.5).default(0.05),
    min_samples: z.int().min(1).default(30),
    window: DurationSchema.default('7d'),
  })
  .strict();

const JudgeHealthRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('judge_health'),
    check: checkName.optional().meta({ description: 'One judge check; unset: every check decided by a judge.' }),
    window: DurationSchema,
    max_error_rate: z.number().gt(0).max(1).optional().meta({ description: 'Limit on (error + not_run) / all scores of judge checks.' }),
    max_lag_ms: z.number().positive().optional().meta({ description: 'Limit on the mean time from the end of a unit to its score.' }),
    min_samples: z.int().min(1).default(20),
    for_evaluations: z.int().min(1).max(1_000).default(3),
  })
  .strict();

const NoDataRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('no_data'),
    window: DurationSchema.meta({ description: 'Fires when no unit matching the filters ended within this long.' }),
    for_evaluations: z.int().min(1).max(1_000).default(1),
  })
  .strict();

const AgreementRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('agreement'),
    check: checkName,
    check_version: z.string().min(1).max(200).optional().meta({ description: 'Only reviews of this version; unset: every version.' }),
    window: DurationSchema.default('90d').meta({ description: 'Only reviews made within this long before the evaluation.' }),
    last_n: z.int().min(1).max(10_000).default(50).meta({ description: "The newest this many reviews (one per reviewer and unit) are measured." }),
    min_agreement: z.number().min(0).max(1).meta({ description: "Fires while the share of reviews agreeing with the check is below this." }),
    min_samples: z.int().min(1).default(20),
    for_evaluations: z.int().min(1).max(1_000).default(1),
  })
  .strict();

/** The state changes of problems a `problem` rule can deliver (the problem miner's events, issue 37). */
export const PROBLEM_ALERT_KINDS = ['problem_new', 'problem_regressed', 'problem_growing'] as const;

const ProblemRuleInputSchema = z
  .object({
    name: common.name,
    notify: common.notify,
    enabled: common.enabled,
    kind: z.literal('problem'),
    events: z
      .array(z.enum(PROBLEM_ALERT_KINDS))
      .min(1)
      .default([...PROBLEM_ALERT_KINDS])
      .refine((e) => new Set(e).size === e.length, { message: 'name each event once' })
      .meta({ description: 'Which state changes notify: problem_new, problem_regressed, problem_growing (default all three).' }),
    problem_id: z.string().min(1).max(64).optional().meta({ description: "Only this problem's changes (a rule made from the problem's page); unset: every problem of the project." }),
    agent: z.string().min(1).max(200).optional().meta({ description: "Only problems of this agent." }),
  })
  .strict();

/** Which units a metric rule (or one side of a metric regression) looks at: the alert filters and the unit's model. */
const MetricFiltersSchema = AlertFiltersSchema.extend({
  model: z.string().max(200).optional().meta({ description: "Matches the unit's model (of its last call); empty: units without one." }),
}).strict();
export type MetricFilters = z.infer<typeof MetricFiltersSchema>;

const unitMetric = z.enum(UNIT_METRICS).meta({ description: 'A per-unit metric, as the metrics API names it.' });

const MetricThresholdRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('metric_threshold'),
    filters: MetricFiltersSchema.optional(),
    metric: unitMetric,
    stat: z.enum(['p50', 'p95', 'p99', 'mean', 'sum', 'rate']).meta({ description: 'rate: the sum per hour over the window (units per hour for volume, USD per hour for cost_usd).' }),
    window: DurationSchema,
    warning: z.number().optional().meta({ description: 'The warning level: fires `warning` beyond it.' }),
    critical: z.number().optional().meta({ description: 'The critical level: fires `critical` beyond it.' }),
    direction: z.enum(['above', 'below']).default('above').meta({ description: 'Whether beyond means above (default) or below the levels.' }),
    min_samples: z.int().min(1).default(1).meta({ description: 'Values needed for a percentile or mean to count; sum and rate are exact at any n (an empty window sums to 0).' }),
    for_evaluations: z.int().min(1).max(1_000).default(1),
  })
  .strict();

const MetricRegressionRuleInputSchema = z
  .object({
    ...common,
    kind: z.literal('metric_regression'),
    filters: MetricFiltersSchema.optional(),
    metric: z.enum(UNIT_METRICS).exclude(['volume']).meta({ description: "A per-unit metric; the candidate's mean is compared with the baseline's." }),
    baseline: MetricFiltersSchema,
    candidate: MetricFiltersSchema,
    alpha: z.number().gt(0).max(0.5).default(0.05),
    min_samples: z.int().min(1).default(30),
    window: DurationSchema.default('7d'),
  })
  .strict();

function metricCrossFieldRules(rule: { kind: string; warning?: number; critical?: number; direction?: string; baseline?: MetricFilters; candidate?: MetricFilters }, ctx: z.RefinementCtx): void {
  if (rule.kind === 'metric_threshold') {
    if (rule.warning === undefined && rule.critical === undefined) ctx.addIssue({ code: 'custom', path: ['warning'], message: 'give warning, critical or both' });
    if (rule.warning !== undefined && rule.critical !== undefined) {
      const below = rule.direction === 'below';
      if (below ? rule.critical >= rule.warning : rule.critical <= rule.warning) ctx.addIssue({ code: 'custom', path: ['critical'], message: `must be ${below ? 'below' : 'above'} warning` });
    }
  }
  if (rule.kind === 'metric_regression' && rule.baseline && rule.candidate) crossFieldRules({ ...rule, kind: 'regression' }, ctx);
}

function crossFieldRules(rule: { kind: string; metric?: string; threshold?: number; max_error_rate?: number; max_lag_ms?: number; baseline?: AlertFilters; candidate?: AlertFilters }, ctx: z.RefinementCtx): void {
  if (rule.kind === 'threshold' && (rule.metric ?? 'pass_rate') === 'pass_rate' && rule.threshold !== undefined && (rule.threshold < 0 || rule.threshold > 1)) {
    ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'a pass_rate threshold is a fraction between 0 and 1' });
  }
  if (rule.kind === 'judge_health' && rule.max_error_rate === undefined && rule.max_lag_ms === undefined) {
    ctx.addIssue({ code: 'custom', path: ['max_error_rate'], message: 'give max_error_rate, max_lag_ms or both' });
  }
  if (rule.kind === 'regression' && rule.baseline && rule.candidate) {
    if (Object.keys(rule.candidate).length === 0) ctx.addIssue({ code: 'custom', path: ['candidate'], message: 'name at least one filter, e.g. {"agent_version": "v2"}' });
    if (Object.keys(rule.baseline).length === 0) ctx.addIssue({ code: 'custom', path: ['baseline'], message: 'name at least one filter, e.g. {"agent_version": "v1"}' });
    if (JSON.stringify(sortKeys(rule.baseline)) === JSON.stringify(sortKeys(rule.candidate))) {
      ctx.addIssue({ code: 'custom', path: ['candidate'], message: 'must differ from baseline' });
    }
  }
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

/** What a client sends to create or replace a rule (`POST` / `PUT /api/v1/alert-rules`). */
export const AlertRuleInputSchema = z
  .discriminatedUnion('kind', [ThresholdRuleInputSchema, RegressionRuleInputSchema, JudgeHealthRuleInputSchema, NoDataRuleInputSchema, AgreementRuleInputSchema, MetricThresholdRuleInputSchema, MetricRegressionRuleInputSchema, ProblemRuleInputSchema])
  .superRefine(crossFieldRules)
  .superRefine(metricCrossFieldRules);
export type AlertRuleInput = z.input<typeof AlertRuleInputSchema>;

const stored = {
  id: z.string().min(1),
  project: z.string().min(1),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
};

/** A stored rule: the input with its defaults filled in, plus identity and timestamps. */
export const AlertRuleSchema = z
  .discriminatedUnion('kind', [
    ThresholdRuleInputSchema.extend(stored),
    RegressionRuleInputSchema.extend(stored),
    JudgeHealthRuleInputSchema.extend(stored),
    NoDataRuleInputSchema.extend(stored),
    AgreementRuleInputSchema.extend(stored),
    MetricThresholdRuleInputSchema.extend(stored),
    MetricRegressionRuleInputSchema.extend(stored),
    ProblemRuleInputSchema.extend(stored),
  ])
  .superRefine(crossFieldRules)
  .superRefine(metricCrossFieldRules);
export type AlertRule = z.output<typeof AlertRuleSchema>;
export type ThresholdRule = Extract<AlertRule, { kind: 'threshold' }>;
export type RegressionRule = Extract<AlertRule, { kind: 'regression' }>;
export type JudgeHealthRule = Extract<AlertRule, { kind: 'judge_health' }>;
export type NoDataRule = Extract<AlertRule, { kind: 'no_data' }>;
export type AgreementRule = Extract<AlertRule, { kind: 'agreement' }>;
export type MetricThresholdRule = Extract<AlertRule, { kind: 'metric_threshold' }>;
export type MetricRegressionRule = Extract<AlertRule, { kind: 'metric_regression' }>;
export type ProblemRule = Extract<AlertRule, { kind: 'problem' }>;
/** The rules the alerter evaluates over a window (a problem rule delivers the miner's events instead). */
export type WindowRule = Exclude<AlertRule, ProblemRule>;

/** The check a rule watches: none for a no-data rule, nor for a judge-health rule over every judge check. */
export function ruleCheck(rule: AlertRule): string | undefined {
  return 'check' in rule ? rule.check : undefined;
}

/** Validation problems as `field: message` lines, one per invalid field (for 400 answers and CLI errors). */
export function describeIssues(error: z.ZodError, root = '(body)'): string[] {
  return error.issues.map((i) => `${i.path.join('.') || root}: ${i.message}`);
}
