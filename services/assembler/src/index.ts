export { createAssembler, parseSpanEnvelope } from './create-assembler.ts';
export type { AssemblerOptions } from './create-assembler.ts';
export { assembleTrace, nanosToMs } from './assemble-trace.ts';
export type { TraceParts } from './assemble-trace.ts';
export { appendDeduplicated, linkToolResultsByPosition, sameMessage } from './merge-history.ts';
export { createTraceBuffer } from './trace-buffer.ts';
export { createSessionAssembler } from './create-session-assembler.ts';
export type { SessionAssemblerOptions } from './create-session-assembler.ts';
export { assembleSession, sessionUnitId } from './assemble-session.ts';
