import { logChoose } from './log-gamma.ts';

/**
 * Fisher's exact test on the 2×2 table [[a, b], [c, d]] (rows: groups, columns: pass / fail).
 * Two-sided p: the sum of the probabilities of every table with the same margins that is no more
 * likely than the observed one (R's fisher.test convention).
 */
export function fisherExactTest(a: number, b: number, c: number, d: number): { pValue: number; pLess: number; pGreater: number } {
  for (const v of [a, b, c, d]) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`invalid cell count ${v}`);
  }
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  const lo = Math.max(0, col1 - row2);
  const hi = Math.min(row1, col1);
  const logDenom = logChoose(n, col1);
  const prob = (x: number): number => Math.exp(logChoose(row1, x) + logChoose(row2, col1 - x) - logDenom);
  const observed = prob(a);
  const limit = observed * (1 + 1e-7);
  let two = 0;
  let less = 0;
  let greater = 0;
  for (let x = lo; x <= hi; x++) {
    const px = prob(x);
    if (px <= limit) two += px;
    if (x <= a) less += px;
    if (x >= a) greater += px;
  }
  return { pValue: Math.min(1, two), pLess: Math.min(1, less), pGreater: Math.min(1, greater) };
}
