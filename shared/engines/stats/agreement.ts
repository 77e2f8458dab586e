import { wilsonInterval, type ProportionInterval } from './wilson.ts';

/**
 * A pass/fail check against people's verdicts. "Positive" is a failure: the question a team asks
 * of an alarm is whether the failure is real (precision) and how many real failures it catches
 * (recall).
 */
interface BinaryConfusion {
  /** The check failed the unit and people agree it fails. */
  fail_fail: number;
  /** The check failed it; people say it passes (a false alarm). */
  fail_pass: number;
  /** The check passed it; people say it fails (a miss). */
  pass_fail: number;
  /** Both say it passes. */
  pass_pass: number;
}

/** One comparison: the check's verdict and a person's (both `true` = passes). */
export interface VerdictPair {
  check: boolean;
  human: boolean;
}

export interface BinaryAgreement {
  confusion: BinaryConfusion;
  /** Agreeing pairs of all pairs, with the Wilson 95% interval. */
  agreement: ProportionInterval;
  /** Cohen's kappa of check against people; null when chance agreement is 1 (both said one thing only). */
  kappa: number | null;
  /** Of the check's failures, the share people confirm; null without failures. */
  fail_precision: number | null;
  /** Of people's failures, the share the check caught; null when people found none. */
  fail_recall: number | null;
}

function binaryConfusion(pairs: readonly VerdictPair[]): BinaryConfusion {
  const c: BinaryConfusion = { fail_fail: 0, fail_pass: 0, pass_fail: 0, pass_pass: 0 };
  for (const p of pairs) {
    if (!p.check && !p.human) c.fail_fail++;
    else if (!p.check) c.fail_pass++;
    else if (!p.human) c.pass_fail++;
    else c.pass_pass++;
  }
  return c;
}

/** Cohen's kappa from a 2×2 table (rows: the first rater, columns: the second). */
export function cohenKappa2x2(a: number, b: number, c: number, d: number): number | null {
  const n = a + b + c + d;
  if (n === 0) return null;
  const observed = (a + d) / n;
  const chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
  if (chance === 1) return null;
  return (observed - chance) / (1 - chance);
}

export function binaryAgreement(pairs: readonly VerdictPair[]): BinaryAgreement {
  const confusion = binaryConfusion(pairs);
  const { fail_fail: ff, fail_pass: fp, pass_fail: pf, pass_pass: pp } = confusion;
  const n = ff + fp + pf + pp;
  return {
    confusion,
    agreement: wilsonInterval(ff + pp, n),
    kappa: cohenKappa2x2(ff, fp, pf, pp),
    fail_precision: ff + fp === 0 ? null : ff / (ff + fp),
    fail_recall: ff + pf === 0 ? null : ff / (ff + pf),
  };
}

/** Ranks from 1, ties sharing the mean of their positions. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = rank;
    i = j + 1;
  }
  return ranks;
}

function pearson(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n < 2) return null;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

/** Spearman's rank correlation (Pearson on average ranks); null with fewer than 2 pairs or no spread. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError('spearman: x and y differ in length');
  return pearson(averageRanks(x), averageRanks(y));
}

export interface ScoreAgreement {
  n: number;
  /** Mean of |check value − person's value|; null without pairs. */
  mean_abs_diff: number | null;
  spearman: number | null;
}

export function scoreAgreement(pairs: readonly { check: number; human: number }[]): ScoreAgreement {
  const n = pairs.length;
  return {
    n,
    mean_abs_diff: n === 0 ? null : pairs.reduce((s, p) => s + Math.abs(p.check - p.human), 0) / n,
    spearman: spearman(
      pairs.map((p) => p.check),
      pairs.map((p) => p.human),
    ),
  };
}

export interface InterRaterAgreement {
  /** Items rated by at least two raters. */
  items: number;
  /** Pairs of ratings of one item that agree, of all such pairs. */
  pairwise_agreement: number | null;
  pairs: number;
  agreeing_pairs: number;
  /** Cohen's kappa when exactly two raters rated the items; null otherwise. */
  cohen_kappa: number | null;
  /** Fleiss' kappa (items may have different numbers of raters); null when undefined. */
  fleiss_kappa: number | null;
  raters: number;
}

/**
 * Agreement between people: `ratings` maps an item to each rater's category (e.g. "pass"/"fail").
 * Items rated once say nothing about agreement and are left out.
 */
export function interRaterAgreement(ratings: ReadonlyMap<string, ReadonlyMap<string, string>>): InterRaterAgreement {
  const items = [...ratings.values()].filter((r) => r.size >= 2);
  const raters = new Set<string>();
  const categories = new Set<string>();
  for (const r of items) {
    for (const [rater, category] of r) {
      raters.add(rater);
      categories.add(category);
    }
  }
  let pairs = 0;
  let agreeing = 0;
  let pSum = 0;
  const categoryTotals = new Map<string, number>();
  let ratingsTotal = 0;
  for (const r of items) {
    const counts = new Map<string, number>();
    for (const category of r.values()) counts.set(category, (counts.get(category) ?? 0) + 1);
    const m = r.size;
    let same = 0;
    for (const [category, k] of counts) {
      same += (k * (k - 1)) / 2;
      categoryTotals.set(category, (categoryTotals.get(category) ?? 0) + k);
    }
    const all = (m * (m - 1)) / 2;
    pairs += all;
    agreeing += same;
    pSum += same / all;
    ratingsTotal += m;
  }
  let fleiss: number | null = null;
  if (items.length > 0) {
    const observed = pSum / items.length;
    const chance = [...categoryTotals.values()].reduce((s, k) => s + (k / ratingsTotal) ** 2, 0);
    fleiss = chance === 1 ? null : (observed - chance) / (1 - chance);
  }
  return {
    items: items.length,
    pairs,
    agreeing_pairs: agreeing,
    pairwise_agreement: pairs === 0 ? null : agreeing / pairs,
    cohen_kappa: raters.size === 2 ? twoRaterKappa(items, [...raters] as [string, string], [...categories]) : null,
    fleiss_kappa: fleiss,
    raters: raters.size,
  };
}

function twoRaterKappa(items: readonly ReadonlyMap<string, string>[], [r1, r2]: [string, string], categories: readonly string[]): number | null {
  const both = items.filter((r) => r.has(r1) && r.has(r2));
  const n = both.length;
  if (n === 0) return null;
  let observed = 0;
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  for (const r of both) {
    const a = r.get(r1)!;
    const b = r.get(r2)!;
    if (a === b) observed++;
    first.set(a, (first.get(a) ?? 0) + 1);
    second.set(b, (second.get(b) ?? 0) + 1);
  }
  const chance = categories.reduce((s, c) => s + ((first.get(c) ?? 0) / n) * ((second.get(c) ?? 0) / n), 0);
  if (chance === 1) return null;
  return (observed / n - chance) / (1 - chance);
}
