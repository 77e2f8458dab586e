import { normalCdf } from './normal.ts';

export interface MannWhitneyResult {
  /** U of the first sample: the number of (a, b) pairs with a > b, ties counting one half. */
  u: number;
  /** U / (nA · nB): the probability that a random A exceeds a random B (ties half). */
  probabilityOfSuperiority: number;
  pValue: number;
  method: 'exact' | 'normal';
}

// Exact null distribution only when it is cheap and valid (no ties), as R's wilcox.test does.
export const EXACT_LIMIT = 50;

/**
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided. Exact distribution without ties for samples
 * under 50 each; otherwise the normal approximation with tie and continuity corrections.
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): MannWhitneyResult {
  const nA = a.length;
  const nB = b.length;
  if (nA === 0 || nB === 0) return { u: Number.NaN, probabilityOfSuperiority: Number.NaN, pValue: 1, method: 'normal' };
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1].v === all[i].v) j++;
    const rank = (i + j) / 2 + 1;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    for (let k = i; k <= j; k++) if (all[k].g === 0) rankSumA += rank;
    i = j + 1;
  }
  return testFromRankSum(nA, nB, rankSumA, tieTerm);
}

/** A value observed `count` times in one arm, as SQL's GROUP BY value gives it. */
export interface ValueCount {
  value: number;
  count: number;
}

/**
 * mannWhitneyU on samples given as counts per distinct value (the API aggregates in SQL and never
 * sees single scores). Each distinct value gets its midrank once, weighted by its count; the tie
 * term t³ − t uses the count over both arms. Same U, tie term and therefore the same result as
 * mannWhitneyU on the expanded samples, including the exact test when every value is distinct.
 * A value may appear more than once in an arm's list; its counts add.
 */
export function mannWhitneyFromCounts(countsA: readonly ValueCount[], countsB: readonly ValueCount[]): MannWhitneyResult {
  const byValue = new Map<number, { a: number; b: number }>();
  const add = (list: readonly ValueCount[], arm: 'a' | 'b'): number => {
    let n = 0;
    for (const { value, count } of list) {
      if (!Number.isFinite(value) || !Number.isInteger(count) || count < 0) throw new RangeError(`invalid value count ${value} × ${count}`);
      const entry = byValue.get(value) ?? { a: 0, b: 0 };
      entry[arm] += count;
      byValue.set(value, entry);
      n += count;
    }
    return n;
  };
  const nA = add(countsA, 'a');
  const nB = add(countsB, 'b');
  if (nA === 0 || nB === 0) return { u: Number.NaN, probabilityOfSuperiority: Number.NaN, pValue: 1, method: 'normal' };
  const values = [...byValue.keys()].sort((x, y) => x - y);
  let below = 0;
  let rankSumA = 0;
  let tieTerm = 0;
  for (const v of values) {
    const { a, b } = byValue.get(v) ?? { a: 0, b: 0 };
    const t = a + b;
    if (t === 0) continue;
    // Ranks below + 1 … below + t share their mean.
    rankSumA += a * (below + (t + 1) / 2);
    tieTerm += t * t * t - t;
    below += t;
  }
  return testFromRankSum(nA, nB, rankSumA, tieTerm);
}

/** U, its exact or normal p-value, from the rank sum of A and the tie term Σ(t³ − t). */
function testFromRankSum(nA: number, nB: number, rankSumA: number, tieTerm: number): MannWhitneyResult {
  const n = nA + nB;
  const u = rankSumA - (nA * (nA + 1)) / 2;
  const probabilityOfSuperiority = u / (nA * nB);
  const mean = (nA * nB) / 2;
  if (tieTerm === 0 && nA < EXACT_LIMIT && nB < EXACT_LIMIT) {
    const cdf = exactUCdf(nA, nB);
    const p = u > mean ? 1 - (cdf[u - 1] ?? 0) : cdf[u];
    return { u, probabilityOfSuperiority, pValue: Math.min(1, 2 * p), method: 'exact' };
  }
  const sigma = Math.sqrt(((nA * nB) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sigma === 0) return { u, probabilityOfSuperiority, pValue: 1, method: 'normal' };
  const diff = u - mean;
  const z = (diff - Math.sign(diff) * 0.5) / sigma;
  const p = 2 * Math.min(normalCdf(z), 1 - normalCdf(z));
  return { u, probabilityOfSuperiority, pValue: Math.min(1, p), method: 'normal' };
}

/** Cumulative P(U ≤ u) for u = 0 … m·n under the null (no ties), by the recurrence on the last element. */
export function exactUCdf(m: number, n: number): number[] {
  // prob[i][j][u]: P(U = u) for sample sizes i and j.
  let prev: number[][] = [];
  for (let j = 0; j <= n; j++) prev.push([1]);
  for (let i = 1; i <= m; i++) {
    const cur: number[][] = [[1]];
    for (let j = 1; j <= n; j++) {
      const size = i * j + 1;
      const out = new Array<number>(size).fill(0);
      const left = prev[j]; // i-1, j: the largest element is from A, adding j to U
      const down = cur[j - 1]; // i, j-1: the largest element is from B
      const wA = i / (i + j);
      const wB = j / (i + j);
      for (let k = 0; k < left.length; k++) out[k + j] += wA * left[k];
      for (let k = 0; k < down.length; k++) out[k] += wB * down[k];
      cur.push(out);
    }
    prev = cur;
  }
  const pmf = prev[n];
  const cdf: number[] = [];
  let acc = 0;
  for (const p of pmf) cdf.push((acc += p));
  return cdf;
}
