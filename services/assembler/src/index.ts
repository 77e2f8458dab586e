export { createAssembler } from './create-assembler.ts';
;
export { createSessionAggregator } from './create-session-aggregator.ts';
;
export { createSessionRouter } from './create-session-router.ts';
;
