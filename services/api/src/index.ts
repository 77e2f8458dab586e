export { createApp } from './create-app.ts';
export type { ApiDeps } from './create-app.ts';
export { createApiServer } from './create-api-server.ts';
export type { ApiServerOptions } from './create-api-server.ts';
export { alertRoutes, ProblemSchema, AlertRuleIdSchema, AlertRuleWithStateSchema, AlertRuleListResponseSchema, AlertHistoryQuerySchema, AlertHistoryResponseSchema } from './alert-routes.ts';
export type { AlertRoutesDeps } from './alert-routes.ts';
