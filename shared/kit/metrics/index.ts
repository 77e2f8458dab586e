export { createMetrics, renderMetrics, METRICS_CONTENT_TYPE } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { createMetricsServer } from './metrics-server.ts';
export { withJudgeMetrics } from './judge-metrics.ts';
export { createConsumerLagReporter } from './consumer-lag-reporter.ts';
export type { ConsumerLagReporter, LagHealth } from './consumer-lag-reporter.ts';
export { createPipelineStatusReporter, PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, PipelineStatusSchema, STAGES } from './pipeline-status.ts';
export type { EvaluationExportStatus,  PipelineStatus, PipelineStatusReporter, Stage, StageBacklog,  } from './pipeline-status.ts';
