export { createAssembler } from './create-assembler.ts';
export type { AssemblerConfig, AssemblerDeps } from './create-assembler.ts';
export { createSessionAggregator } from './create-session-aggregator.ts';
export type { SessionAggregatorConfig, SessionAggregatorDeps } from './create-session-aggregator.ts';
export { createSessionRouter } from './create-session-router.ts';
export type { SessionRouterConfig, SessionRouterDeps } from './create-session-router.ts';
