import { distance } from 'fastest-levenshtein';

/** Lower case, collapsed whitespace, no punctuation: what two turns share when they say the same thing. */
export function normalizeText(text: string | null | undefined): string {
  return (text ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const MAX_COMPARE_CHARS = 4000;

/** 1 − normalized edit distance, on normalized text (1 = same words, 0 = nothing in common). */
export function textSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = a.slice(0, MAX_COMPARE_CHARS);
  const y = b.slice(0, MAX_COMPARE_CHARS);
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 1;
  // Lengths alone bound the similarity: skip the edit distance when it cannot reach a threshold.
  return 1 - distance(x, y) / longest;
}

export function lengthBound(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : Math.min(a.length, b.length) / longest;
}

/** Tool-call arguments compare by meaning, not spelling. */
export { canonicalJsonText as canonicalArgs } from '../../../contracts/schemas/index.ts';
