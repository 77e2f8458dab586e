export { EvalConfigError } from './eval-error.ts';
export { parseOverrides } from './overrides.ts';
export { loadSuite } from './load-suite.ts';
export type { MainConfig, MetricSpec, PromptSuite, Reference, Suite } from './suite-types.ts';
export { runSuite, newRunId } from './run-suite.ts';
export type { EvalDeps } from './run-suite.ts';
export { runEval } from './run-eval.ts';
export { runToScores } from './run-to-scores.ts';
export type { EvalRun, RunEvalOptions } from './run-eval.ts';
export { createEvalGenerator } from './create-generator.ts';
export { createUserPython } from './user-python/create-user-python.ts';
export type { Generation, GenerationRequest, Generator } from './generation.ts';
export { createProgress, silentProgress } from './progress.ts';
export type { Progress } from './progress.ts';
export type { MetricResult, PromptResult, RowResult, RunResult, RunSummary, TryResult } from './result-types.ts';
export { buildTables } from './report/table.ts';
export type { ReportTable } from './report/table.ts';
export { renderSummary, renderTextTable, renderTextTables } from './report/render-text.ts';
export { renderMarkdown } from './report/render-markdown.ts';
export { renderHtml, escapeHtml } from './report/render-html.ts';
export { writeReports } from './report/write-reports.ts';
export type { ReportPaths } from './report/write-reports.ts';
export { readRun } from './report/read-run.ts';
export { multirunFolder } from './report/write-reports.ts';
export { crossRunRollup, rollupTable } from './report/cross-run-rollup.ts';
export {
  alignOutputs,
  buildPairwisePrompt,
  formatPercent,
  formatPValue,
  generatePairs,
  parsePairwiseVerdict,
  readOutputsFile,
  readPreferencesFile,
  renderComparisonMarkdown,
  renderComparisonText,
  runPairwise,
  summarizeComparison,
} from './compare/index.ts';
export type { AlignedPair, ComparisonItem, ComparisonResult, PositionBias, PreferenceRecord } from './compare/index.ts';
