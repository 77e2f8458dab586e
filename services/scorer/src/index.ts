export { createScorer, parseUnit } from './create-scorer.ts';
export type { ScorerOptions } from './create-scorer.ts';
export { scoreUnit } from './score-unit.ts';
export type { ScoreUnitDeps, SelectedCheck, SimulationDialog } from './score-unit.ts';
export { outcomeToScore } from './outcome-to-score.ts';
export { createCheckSelector } from './check-selector.ts';
export type { CheckSelector, CheckSelectorOptions } from './check-selector.ts';
export { createSimulationWaiter } from './simulation-waiter.ts';
