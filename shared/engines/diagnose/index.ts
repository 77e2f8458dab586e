export { DIAGNOSTIC_CODES, diagnoseUnit, hasMessageText } from './diagnose-unit.ts';
export type { Diagnostic, DiagnosticCode } from './diagnose-unit.ts';
