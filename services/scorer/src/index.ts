export { createScorer } from './create-scorer.ts';
export type { ScorerConfig, ScorerDeps } from './create-scorer.ts';
export { createCheckSelector } from './check-selector.ts';
export type { CheckSelector, CheckSelectorOptions } from './check-selector.ts';
export { backfillId, runBackfill } from './backfill.ts';
export type { BackfillOptions, BackfillProgress } from './backfill.ts';
export { createEvaluationExporter } from './evaluation-export/exporter.ts';
export type { EvaluationExporter } from './evaluation-export/exporter.ts';
export { createOtlpSender } from './evaluation-export/send-otlp.ts';
