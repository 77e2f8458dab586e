import type { CatalogEntry } from '../builtin-check.ts';
import { answerRelevance } from './answer-relevance.ts';
import { automatedResolution } from './automated-resolution.ts';
import { behaviorAdherence } from './behavior-adherence.ts';
import { coherence } from './coherence.ts';
import { coherenceSummary } from './coherence-summary.ts';
import { codeBlocksCompile } from './code-blocks-compile.ts';
import { compressionRatio } from './compression-ratio.ts';
import { conciseness } from './conciseness.ts';
import { concisenessForRequest } from './conciseness-for-request.ts';
import { consistency } from './consistency.ts';
import { consistencySummary } from './consistency-summary.ts';
import { containsAllImports } from './contains-all-imports.ts';
import { contextConsistency } from './context-consistency.ts';
import { contextRelevance } from './context-relevance.ts';
import { doesCodeCompile } from './does-code-compile.ts';
import { empathyScore } from './empathy-score.ts';
import { fairness } from './fairness.ts';
import { faithfulness } from './faithfulness.ts';
import { fluency } from './fluency.ts';
import { fluencySummary } from './fluency-summary.ts';
import { functionCallConsistency } from './function-call-consistency.ts';
import { functionCallValidator } from './function-call-validator.ts';
import { functionParameterAccuracy } from './function-parameter-accuracy.ts';
import { functionResultPresent } from './function-result-present.ts';
import { instructionAdherence } from './instruction-adherence.ts';
import { isBestOption } from './is-best-option.ts';
import { isCodeFunctional } from './is-code-functional.ts';
import { levenshteinDistance } from './levenshtein-distance.ts';
import { levenshteinDistanceInput } from './levenshtein-distance-input.ts';
import { loopGuard } from './loop-guard.ts';
import { modelRefusal } from './model-refusal.ts';
import { referenceSimilarity } from './reference-similarity.ts';
import { relevance } from './relevance.ts';
import { relevanceSummary } from './relevance-summary.ts';
import { rephraseQuality } from './rephrase-quality.ts';
import { responseConsistency } from './response-consistency.ts';
import { responseLoop } from './response-loop.ts';
import { resultCompleted } from './result-completed.ts';
import { reverseQaQuality } from './reverse-qa-quality.ts';
import { simulationTraceConsistency } from './simulation-trace-consistency.ts';
import { taskCompleted } from './task-completed.ts';
import { toolResultConsistency } from './tool-result-consistency.ts';
import { toxicity } from './toxicity.ts';
import { uniqueness } from './uniqueness.ts';

/** The predefined catalog (the 39 documented names, then our extensions), in the order `checks list` prints it. */
export const catalogEntries: readonly CatalogEntry[] = [
  conciseness,
  uniqueness,
  fluency,
  fluencySummary,
  coherence,
  coherenceSummary,
  consistency,
  consistencySummary,
  relevance,
  relevanceSummary,
  doesCodeCompile,
  containsAllImports,
  compressionRatio,
  levenshteinDistance,
  levenshteinDistanceInput,
  behaviorAdherence,
  taskCompleted,
  resultCompleted,
  modelRefusal,
  loopGuard,
  automatedResolution,
  responseConsistency,
  responseLoop,
  simulationTraceConsistency,
  functionCallConsistency,
  functionCallValidator,
  functionParameterAccuracy,
  functionResultPresent,
  contextRelevance,
  contextConsistency,
  referenceSimilarity,
  faithfulness,
  toxicity,
  fairness,
  empathyScore,
  isCodeFunctional,
  isBestOption,
  reverseQaQuality,
  rephraseQuality,
  // Extensions under their own names, where the documented name keeps the documented behaviour.
  codeBlocksCompile,
  concisenessForRequest,
  answerRelevance,
  instructionAdherence,
  toolResultConsistency,
];
