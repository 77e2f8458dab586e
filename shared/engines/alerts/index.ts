export {
  AlertRuleInputSchema,
  AlertRuleSchema,
  ThresholdRuleInputSchema,
  RegressionRuleInputSchema,
  JudgeHealthRuleInputSchema,
  NoDataRuleInputSchema,
  AgreementRuleInputSchema,
  MetricThresholdRuleInputSchema,
  MetricRegressionRuleInputSchema,
  ProblemRuleInputSchema,
  PROBLEM_ALERT_KINDS,
  MetricFiltersSchema,
  AlertFiltersSchema,
  NotifyTargetSchema,
  DurationSchema,
  describeIssues,
  ruleCheck,
} from './rule.ts';
export type { AlertRuleInput, AlertRule, ThresholdRule, RegressionRule, JudgeHealthRule, NoDataRule, AgreementRule, MetricThresholdRule, MetricRegressionRule, ProblemRule, ProblemAlertKind, WindowRule, MetricFilters, AlertRuleKind, AlertFilters, NotifyTarget } from './rule.ts';
export { parseDuration, formatDuration, durationProblem, DurationError, DURATION_PATTERN, MAX_DURATION_MS } from './duration.ts';
export { AlertPayloadSchema, AlertSideSchema, AlertEventSchema, AlertStateSchema, DeliverySchema, initialAlertState } from './event.ts';
export type { AlertPayload, AlertSide, AlertEvent, AlertState, Delivery } from './event.ts';
export { createAlertRepository, newAlertEventId, ALERT_DOC_KINDS } from './repository.ts';
export type { AlertRepository, AlertEventPage, ListEventsQuery, InvalidDocHandler } from './repository.ts';
export { PAGERDUTY_EVENTS_URL, recipients, targetAddress } from './targets.ts';
export type { HttpTarget, EmailTarget, PagerDutyTarget } from './targets.ts';
export { DEFAULT_ALERT_LIMITS, alertLimitProblems, emailDomainAllowed, ruleWithinLimits } from './alert-limits.ts';
export type { AlertLimits } from './alert-limits.ts';
