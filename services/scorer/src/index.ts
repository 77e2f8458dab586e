export { createScorer, parseUnit } from './create-scorer.ts';
export type { ScorerOptions } from './create-scorer.ts';
export { scoreUnit } from './score-unit.ts';
export type { ScoreUnitDeps } from './score-unit.ts';
export { outcomeToScore } from './outcome-to-score.ts';
export { withConcurrencyLimit } from './bounded-judge.ts';
