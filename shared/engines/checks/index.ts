export type {
  CheckContext,
  CheckInput,
  CheckKind,
  CheckOutcome,
  CodeLanguage,
  CodeRunner,
  CodeRunRequest,
  CodeRunResult,
  SyntaxCheckRequest,
  SyntaxCheckResult,
  JudgeClient,
  JudgeAudio,
  JudgeRequest,
  JudgeResponse,
  OutputType,
  RunnableCheck,
} from './contract.ts';
export type { BuiltinCheckDefinition, CheckDefinition, CodeCheckDefinition, ModelCheckDefinition } from './definition.ts';
export { CheckDefinitionError, definitionVersion } from './definition.ts';
export { canonicalJson } from '../../contracts/schemas/index.ts';
export type { CatalogEntry } from './builtin-check.ts';
export { catalogEntries } from './catalog/index.ts';
export type { CheckRegistry, CheckRegistryOptions, RegisteredCheck } from './registry.ts';
export { createCheckRegistry } from './registry.ts';
export { runCheck } from './run-check.ts';
export type { EvalRecord } from './check-input.ts';
export { parseEvalRecord, recordToCheckInput, toolCallsFromMessages, unitToCheckInput } from './check-input.ts';
export { parseTemplate, TEMPLATE_VARIABLES, templateWarnings } from './template.ts';
export { buildJudgePrompt } from './judge-prompt.ts';
export { encodeJudgeData } from './judge-data.ts';
export { parseJudgeAnswer } from './judge-answer.ts';
export { codeCheckArgs, codeCheckProblems, coerceCodeValue, createCodeCheck, MAX_CODE_CHECK_TIMEOUT_MS } from './code-check.ts';
export { createModelCheck } from './model-check.ts';
export type { EvaluatorSpec, GenerateCheckRequest } from './authoring.ts';
export { generateCheckSource, generateCodeCheck, SAMPLE_INPUTS, verifyCodeCheck } from './authoring.ts';
export { checkSlug, codeCheckFromSdk, outputTypeOfCheckType, outputTypeOfDataType, outputTypeOfValue, UNBOUNDED } from './sdk-shapes.ts';
export type { RecentOutputs } from './recent-outputs.ts';
export { createRecentOutputs, recentOutputsKey } from './recent-outputs.ts';
export { closestCheckNames, unknownCheckMessage } from './unknown-check.ts';
export { checkInMode, checkModeProblems, decidedBy, DEFAULT_JUDGE_MODE, JUDGE_MODES, type JudgeMode } from './check-mode.ts';
