export type {
  CheckContext,
  CheckInput,
  
  
  
  CodeRunner,
  CodeRunRequest,
  CodeRunResult,
  SyntaxCheckRequest,
  SyntaxCheckResult,
  JudgeClient,
  
  JudgeRequest,
  JudgeResponse,
  OutputType,
  RunnableCheck,
} from './contract.ts';
export type {  CheckDefinition, CodeCheckDefinition, ModelCheckDefinition } from './definition.ts';
export { CheckDefinitionError, definitionVersion } from './definition.ts';
export { canonicalJson } from '../../contracts/schemas/index.ts';
;
export { catalogEntries } from './catalog/index.ts';
export type { CheckRegistry,   } from './registry.ts';
export { createCheckRegistry } from './registry.ts';
export { runCheck } from './run-check.ts';
;
export { parseEvalRecord, recordToCheckInput,  unitToCheckInput } from './check-input.ts';
export { parseTemplate,  templateWarnings } from './template.ts';
export { buildJudgePrompt } from './judge-prompt.ts';
export { encodeJudgeData } from './judge-data.ts';
export { parseJudgeAnswer } from './judge-answer.ts';
export { codeCheckArgs,   createCodeCheck, MAX_CODE_CHECK_TIMEOUT_MS } from './code-check.ts';
export { createModelCheck } from './model-check.ts';
;
export { generateCheckSource, generateCodeCheck, SAMPLE_INPUTS, verifyCodeCheck } from './authoring.ts';
export { checkSlug, codeCheckFromSdk, outputTypeOfCheckType, outputTypeOfDataType, outputTypeOfValue, UNBOUNDED } from './sdk-shapes.ts';
export type { RecentOutputs } from './recent-outputs.ts';
export { createRecentOutputs, recentOutputsKey } from './recent-outputs.ts';
export {  unknownCheckMessage } from './unknown-check.ts';
export { checkInMode, checkModeProblems, decidedBy,  JUDGE_MODES, type JudgeMode } from './check-mode.ts';
