export { createAssembler, parseSpanEnvelope } from './create-assembler.ts';
export type { AssemblerOptions } from './create-assembler.ts';
export { assembleTrace, nanosToMs } from './assemble-trace.ts';
export type { TraceParts } from './assemble-trace.ts';
export { appendDeduplicated, linkToolResultsByPosition, sameMessage } from './merge-history.ts';
export { createTraceBuffer } from './trace-buffer.ts';
