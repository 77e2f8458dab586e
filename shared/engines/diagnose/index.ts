export { DIAGNOSTIC_CODES, diagnoseUnit, hasMessageText } from './diagnose-unit.ts';
export type { Diagnostic, DiagnosticCode } from './diagnose-unit.ts';
export { instrumentationOf } from './instrumentations.ts';
export type { Instrumentation } from './instrumentations.ts';
