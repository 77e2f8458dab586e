export { createApp } from './create-app.ts';
export type { ApiDeps, ApiSecurity } from './create-app.ts';
export { createApiServer } from './create-api-server.ts';
export type { ApiServerOptions } from './create-api-server.ts';
export type { CheckCatalog } from './pages/index.ts';
export { compareMetrics } from './compare-metrics.ts';
export type { MetricComparison } from './compare-metrics.ts';
export { scorerBacklog } from './scoring-plan-source.ts';
export type { DocumentRedaction } from './simulation-routes.ts';
