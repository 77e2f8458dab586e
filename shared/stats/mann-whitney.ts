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
const EXACT_LIMIT = 50;

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

/** Cumulative P(U ≤ u) for u = 0 … m·n under the null, by the recurrence on the last element. */
function exactUCdf(m: number, n: number): number[] {
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
