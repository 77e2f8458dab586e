export { DIAGNOSTIC_CODES, contentByReferenceReason, diagnoseUnit, hasMessageText } from './diagnose-unit.ts';
export type { Diagnostic, DiagnosticCode } from './diagnose-unit.ts';
