import type { AgreementRule } from '../../../shared/engines/alerts/index.ts';
import { wilsonInterval } from '../../../shared/engines/stats/index.ts';
import type { Review } from '../../../shared/engines/review/index.ts';

/** What an agreement rule measured: the newest `last_n` reviews, how many agree with the check. */
export interface AgreementObservation {
  kind: 'agreement';
  n: number;
  agreeing: number;
  /** agreeing / n; null without reviews. */
  value: number | null;
  /** Units of the measured reviews that people marked wrong (newest first, at most 20). */
  units: string[];
  verdict: 'bad' | 'good' | 'unknown';
}

/** Reviews the rule reads: of its check (and version), made within its window. */
export function agreementReviews(rule: AgreementRule, reviews: readonly Review[], fromMs: number): Review[] {
  return reviews.filter((r) => r.check === rule.check && (rule.check_version === undefined || r.check_version === rule.check_version) && r.created_at_ms >= fromMs);
}

/** Agreement over the newest `last_n` reviews, bad below `min_agreement` once `min_samples` are in. Pure. */
export function observeAgreement(rule: AgreementRule, reviews: readonly Review[]): AgreementObservation {
  const newest = [...reviews].sort((a, b) => b.created_at_ms - a.created_at_ms || a.unit_id.localeCompare(b.unit_id)).slice(0, rule.last_n);
  const n = newest.length;
  const agreeing = newest.filter((r) => r.agrees).length;
  const value = n === 0 ? null : agreeing / n;
  const verdict = value === null || n < rule.min_samples ? 'unknown' : value < rule.min_agreement ? 'bad' : 'good';
  const units = [...new Set(newest.filter((r) => !r.agrees).map((r) => r.unit_id))].slice(0, 20);
  return { kind: 'agreement', n, agreeing, value, units, verdict };
}

/** The notification's sentence. */
export function summarizeAgreement(rule: AgreementRule, o: AgreementObservation, firing: boolean): string {
  const version = rule.check_version !== undefined ? ` version ${rule.check_version}` : '';
  if (o.value === null) return `${rule.check}${version}: no reviews over the last ${rule.window}`;
  const w = wilsonInterval(o.agreeing, o.n);
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  return `people agree with ${rule.check}${version} on ${o.agreeing} of the last ${o.n} reviews (${pct(o.value)} [${pct(w.lower)}–${pct(w.upper)}]), ${firing ? 'below' : 'back at or above'} ${pct(rule.min_agreement)}`;
}
