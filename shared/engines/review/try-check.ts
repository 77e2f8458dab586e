import { z } from 'zod';
import type { QueryStore, Store } from '../../adapters/store/contract.ts';
import { runCheck, unitToCheckInput, type CheckContext, type RunnableCheck } from '../checks/index.ts';
import { checkAgreement, humanPassed, humanValue, type CheckAgreement } from './agreement.ts';
import type { Review } from './schemas.ts';

// Trying a check version before it goes live: the new version re-runs over the units people
// reviewed, and its agreement with them is put beside the current version's (what the check said
// when the units were reviewed). A try is recorded, so a monitor's `min_agreement` can ask for it.

export const CHECK_TRY_DOC_KIND = 'check_try';
/** Units run at once: judge calls go through the one judge client, which bounds them again. */
const AT_ONCE = 8;

interface CheckTryDiff {
  unit_id: string;
  /** What people said: pass (true) / fail, or the value for a score check; null when unknown. */
  human: boolean | number | null;
  current_passed: boolean | null;
  current_value: number | null;
  new_passed: boolean | null;
  new_value: number | null;
  new_explanation: string;
}

export interface CheckTry {
  check: string;
  project: string;
  new_version: string;
  /** Reviews of every version (or of `current_version` when one was asked for). */
  current: CheckAgreement;
  /** The same reviews, with the new version's verdicts in place of the reviewed ones. */
  candidate: CheckAgreement;
  units: number;
  /** Reviews the new version agrees with, of those it scored (pass/fail and score checks alike). */
  new_agrees: { successes: number; total: number };
  /** Units where the new version's verdict differs from the reviewed one. */
  differ: CheckTryDiff[];
  /** Units the new version could not score (not counted in `candidate`). */
  not_scored: { unit_id: string; error: string }[];
  created_at_ms: number;
}

/** What a monitor's guard reads of a stored try. */
const CheckTryDocSchema = z.looseObject({ check: z.string(), new_version: z.string(), new_agrees: z.object({ successes: z.number().int(), total: z.number().int() }) });

function sameVerdict(a: { passed: boolean | null; value: number | null }, b: { passed: boolean | null; value: number | null }): boolean {
  return a.passed !== null || b.passed !== null ? a.passed === b.passed : a.value === b.value;
}

/**
 * Runs `check` (a new version of `check.name`) over every unit reviewed for that check in the
 * project and compares. `currentVersion` limits the reviews to those of one version.
 */
export async function tryCheck(
  store: Pick<Store, 'getUnit'>,
  reviews: readonly Review[],
  input: { project: string; check: RunnableCheck; ctx: CheckContext; nowMs: number; currentVersion?: string },
): Promise<CheckTry> {
  const name = input.check.name;
  const ofCheck = reviews.filter((r) => r.check === name && (input.currentVersion === undefined || r.check_version === input.currentVersion));
  const unitIds = [...new Set(ofCheck.map((r) => r.unit_id))];
  const outcomes = new Map<string, { passed: boolean | null; value: number | null; explanation: string } | { error: string }>();
  for (let i = 0; i < unitIds.length; i += AT_ONCE) {
    await Promise.all(
      unitIds.slice(i, i + AT_ONCE).map(async (id) => {
        const unit = await store.getUnit(id, input.project);
        if (!unit) {
          outcomes.set(id, { error: 'the unit is no longer stored' });
          return;
        }
        const o = await runCheck(input.check, unitToCheckInput(unit), input.ctx);
        outcomes.set(id, o.status === 'ok' ? { passed: o.passed, value: o.value, explanation: o.explanation } : { error: `${o.status}: ${o.error}` });
      }),
    );
  }
  const candidateReviews: Review[] = [];
  const differ: CheckTryDiff[] = [];
  for (const id of unitIds) {
    const o = outcomes.get(id)!;
    if ('error' in o) continue;
    const mine = ofCheck.filter((r) => r.unit_id === id);
    for (const r of mine) {
      const passedByPeople = humanPassed(r);
      const valueByPeople = humanValue(r);
      const agrees = o.passed !== null ? passedByPeople !== null && o.passed === passedByPeople : valueByPeople !== null && o.value !== null && Math.abs(o.value - valueByPeople) < 1e-9;
      // A person's value is kept explicit: "agreed with the old value" must not read as "agrees with the new one".
      candidateReviews.push({ ...r, check_version: input.check.version, check_passed: o.passed, check_value: o.value, agrees, verdict_value: r.check_passed === null ? valueByPeople : r.verdict_value });
    }
    const first = mine[0];
    if (!sameVerdict({ passed: first.check_passed, value: first.check_value }, o)) {
      differ.push({ unit_id: id, human: humanPassed(first) ?? humanValue(first), current_passed: first.check_passed, current_value: first.check_value, new_passed: o.passed, new_value: o.value, new_explanation: o.explanation });
    }
  }
  return {
    check: name,
    project: input.project,
    new_version: input.check.version,
    current: checkAgreement(name, ofCheck, input.currentVersion),
    candidate: checkAgreement(name, candidateReviews, input.check.version),
    units: unitIds.length,
    new_agrees: { successes: candidateReviews.filter((r) => r.agrees).length, total: candidateReviews.length },
    differ,
    not_scored: unitIds.flatMap((id) => {
      const o = outcomes.get(id)!;
      return 'error' in o ? [{ unit_id: id, error: o.error }] : [];
    }),
    created_at_ms: input.nowMs,
  };
}

/** Keeps the try of a version (the latest try of it replaces an earlier one). */
export async function putCheckTry(store: QueryStore, t: CheckTry): Promise<void> {
  const id = `${t.check}@${t.new_version}`;
  const before = await store.getDoc(CHECK_TRY_DOC_KIND, t.project, id);
  await store.putDoc({ kind: CHECK_TRY_DOC_KIND, project: t.project, id, body: t, updated_at_ms: Math.max(t.created_at_ms, (before?.updated_at_ms ?? 0) + 1) });
}

/**
 * The measured agreement of one version of a check with people (reviews it agrees with, of all):
 * its recorded try when there is one, else the reviews of that version. Null when neither exists.
 */
export async function measuredAgreement(store: QueryStore, reviews: readonly Review[], project: string, check: string, version: string): Promise<{ successes: number; total: number; source: 'try' | 'reviews' } | null> {
  const doc = await store.getDoc(CHECK_TRY_DOC_KIND, project, `${check}@${version}`);
  const parsed = doc ? CheckTryDocSchema.safeParse(doc.body) : null;
  if (parsed?.success) return { ...parsed.data.new_agrees, source: 'try' };
  const reviewed = reviews.filter((r) => r.check === check && r.check_version === version);
  return reviewed.length > 0 ? { successes: reviewed.filter((r) => r.agrees).length, total: reviewed.length, source: 'reviews' } : null;
}
