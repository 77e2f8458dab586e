export { createMetrics, renderMetrics, METRICS_CONTENT_TYPE } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { createMetricsServer } from './metrics-server.ts';
export { withJudgeMetrics } from './judge-metrics.ts';
