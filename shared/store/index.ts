export type { Store, ScoreQuery } from './contract.ts';
