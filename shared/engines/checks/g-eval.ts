import type { JudgeToken } from './contract.ts';

export interface WeightedScore {
  value: number;
  /** Each score the judge weighed, with its probability (renormalised over the scores), highest first. */
  weights: { score: number; p: number }[];
}

/**
 * G-Eval's score: the scores the judge could have written at the place it wrote its number,
 * weighted by their probabilities — Σ p(s)·s / Σ p(s) over whole numbers in the range. Okareo's
 * G-Eval checks answer this float (okareo-python-sdk okareo_tests/utils.py: "due to the
 * imprecision of logprob calculation ... 5.0000000000001"). Null when the tokens do not spell the
 * answer or the number is not a token of its own: the caller keeps the written number.
 */
export function weightedScore(text: string, at: number, tokens: readonly JudgeToken[], range: readonly [number, number]): WeightedScore | null {
  if (tokens.map((t) => t.token).join('') !== text) return null;
  let start = 0;
  const token = tokens.find((t) => {
    const end = start + t.token.length;
    const covers = at >= start && at < end;
    start = end;
    return covers;
  });
  if (!token || !/^\s*\d+\s*$/.test(token.token)) return null;
  const [lo, hi] = range;
  const byScore = new Map<number, number>();
  for (const alt of token.top) {
    if (!/^\s*\d+\s*$/.test(alt.token) || !Number.isFinite(alt.logprob)) continue;
    const score = Number(alt.token.trim());
    if (score < lo || score > hi) continue;
    byScore.set(score, (byScore.get(score) ?? 0) + Math.exp(alt.logprob));
  }
  const total = [...byScore.values()].reduce((a, b) => a + b, 0);
  if (total <= 0) return null;
  const weights = [...byScore].map(([score, p]) => ({ score, p: p / total })).sort((a, b) => b.p - a.p || a.score - b.score);
  const value = weights.reduce((sum, w) => sum + w.score * w.p, 0);
  // Rounding of the probabilities can land a hair outside the range (Okareo's 5.0000000000001).
  return { value: Math.min(hi, Math.max(lo, value)), weights };
}
