export {
  AlertRuleInputSchema,
  AlertRuleSchema,
  
  
  
  
  
  
  
  
  PROBLEM_ALERT_KINDS,
  
  
  NotifyTargetSchema,
  
  describeIssues,
  ruleCheck,
} from './rule.ts';
export type { AlertRuleInput, AlertRule, ThresholdRule, RegressionRule, JudgeHealthRule, NoDataRule, AgreementRule, MetricThresholdRule, MetricRegressionRule, ProblemRule,  WindowRule, MetricFilters,  AlertFilters, NotifyTarget } from './rule.ts';
export { parseDuration,      } from './duration.ts';
export { AlertPayloadSchema,  AlertEventSchema, AlertStateSchema, DeliverySchema, initialAlertState } from './event.ts';
export type { AlertPayload, AlertSide, AlertEvent, AlertState, Delivery } from './event.ts';
export { createAlertRepository, newAlertEventId, ALERT_DOC_KINDS } from './repository.ts';
export type { AlertRepository,    } from './repository.ts';
export {  recipients, targetAddress } from './targets.ts';
export type { HttpTarget, EmailTarget, PagerDutyTarget } from './targets.ts';
export { DEFAULT_ALERT_LIMITS, alertLimitProblems,  ruleWithinLimits } from './alert-limits.ts';
export type { AlertLimits } from './alert-limits.ts';
