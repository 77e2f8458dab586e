export { levenshteinDistanceInput } from './levenshtein-distance.ts';
