import { binaryAgreement, interRaterAgreement, scoreAgreement, type BinaryAgreement, type InterRaterAgreement, type ScoreAgreement } from '../stats/agreement.ts';
import type { Review } from './schemas.ts';

export interface CheckAgreement {
  check: string;
  /** The check version the figures are of; null: every version reviewed. */
  version: string | null;
  reviews: number;
  /** Reviews per check version, so a page can offer each. */
  versions: { version: string; reviews: number }[];
  /** For pass/fail checks (reviews of scores with a verdict); null when none. */
  binary: BinaryAgreement | null;
  /** For score checks: the check's value against people's (a review that agrees says "the same value"). */
  score: ScoreAgreement | null;
  /** Between people, on units two or more of them reviewed. */
  inter_reviewer: InterRaterAgreement;
}

/** What a person says the verdict is: pass (true) or fail, for a pass/fail check. */
export function humanPassed(r: Pick<Review, 'agrees' | 'check_passed'>): boolean | null {
  return r.check_passed === null ? null : r.agrees ? r.check_passed : !r.check_passed;
}

/** What a person says the value is, for a score check; null when they only disagreed. */
export function humanValue(r: Pick<Review, 'agrees' | 'check_value' | 'verdict_value'>): number | null {
  return r.verdict_value ?? (r.agrees ? r.check_value : null);
}

/** Agreement of a check (one version of it, when `version` is given) with people, and of people with each other. */
export function checkAgreement(check: string, allReviews: readonly Review[], version?: string): CheckAgreement {
  const ofCheck = allReviews.filter((r) => r.check === check);
  const counts = new Map<string, number>();
  for (const r of ofCheck) counts.set(r.check_version, (counts.get(r.check_version) ?? 0) + 1);
  const reviews = version === undefined ? ofCheck : ofCheck.filter((r) => r.check_version === version);
  const verdicts = reviews.filter((r) => r.check_passed !== null);
  const valued = reviews.flatMap((r) => {
    const human = humanValue(r);
    return r.check_passed === null && r.check_value !== null && human !== null ? [{ check: r.check_value, human }] : [];
  });
  const ratings = new Map<string, Map<string, string>>();
  for (const r of reviews) {
    const passed = humanPassed(r);
    const value = humanValue(r);
    const label = passed !== null ? (passed ? 'pass' : 'fail') : value !== null ? String(value) : null;
    if (label === null) continue;
    const key = `${r.unit_id}\u0000${r.check_version}`;
    let byReviewer = ratings.get(key);
    if (!byReviewer) {
      byReviewer = new Map<string, string>();
      ratings.set(key, byReviewer);
    }
    byReviewer.set(r.reviewer, label);
  }
  return {
    check,
    version: version ?? null,
    reviews: reviews.length,
    versions: [...counts].map(([v, n]) => ({ version: v, reviews: n })).sort((a, b) => a.version.localeCompare(b.version)),
    binary: verdicts.length > 0 ? binaryAgreement(verdicts.map((r) => ({ check: r.check_passed!, human: humanPassed(r)! }))) : null,
    score: valued.length > 0 ? scoreAgreement(valued) : null,
    inter_reviewer: interRaterAgreement(ratings),
  };
}
