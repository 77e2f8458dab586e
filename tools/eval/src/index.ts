export { EvalConfigError } from './eval-error.ts';
export { parseOverrides } from './overrides.ts';
;
;
;
;
export { runEval } from './run-eval.ts';
export { runToScores } from './run-to-scores.ts';
;
export { createEvalGenerator } from './create-generator.ts';
export { createUserPython } from './user-python/create-user-python.ts';
;
export { createProgress,  } from './progress.ts';
;
export type {    RunResult,   } from './result-types.ts';
export { buildTables } from './report/table.ts';
;
export { renderSummary,  renderTextTables } from './report/render-text.ts';
export { renderMarkdown } from './report/render-markdown.ts';
export { renderHtml,  } from './report/render-html.ts';
;
;
export { readRun } from './report/read-run.ts';
export { multirunFolder } from './report/write-reports.ts';
export { crossRunRollup, rollupTable } from './report/cross-run-rollup.ts';
export {
  alignOutputs,
  
  
  
  generatePairs,
  
  readOutputsFile,
  readPreferencesFile,
  renderComparisonMarkdown,
  renderComparisonText,
  runPairwise,
  summarizeComparison,
} from './compare/index.ts';
export type { AlignedPair,  ComparisonResult,   } from './compare/index.ts';
