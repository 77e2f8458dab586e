import type { Score } from '../../contracts/schemas/index.ts';
import type { Store } from '../../adapters/store/contract.ts';
import type { ReviewRepository } from './repository.ts';
import type { Review, ReviewInputSchema } from './schemas.ts';
import type { z } from 'zod';

type RecordStore = Pick<Store, 'queryScores' | 'getUnitRevision'>;

/** Whether a value a person gives says the check was right. */
export function agreesWith(score: Pick<Score, 'passed' | 'value'>, verdictValue: number): boolean {
  if (score.passed !== null) return verdictValue >= 0.5 === score.passed;
  return score.value !== null && Math.abs(score.value - verdictValue) < 1e-9;
}

/**
 * Stores a person's review of a check's score of a unit, with what the check said (its version,
 * verdict and value) and which revision of the unit was reviewed. Null when the unit has no score of
 * that check in the project.
 */
export async function recordReview(
  store: RecordStore,
  repo: ReviewRepository,
  input: z.output<typeof ReviewInputSchema>,
  who: { project: string; reviewer: string; atMs: number },
): Promise<Review | null> {
  const [score] = await store.queryScores({ project: who.project, unitId: input.unit_id, check: input.check, limit: 1 });
  if (!score) return null;
  const revision = score.unit_revision ?? (await store.getUnitRevision(input.unit_id, who.project))?.revision ?? 1;
  const agrees = input.agrees ?? agreesWith(score, input.verdict_value!);
  return repo.putReview({
    project: who.project,
    unit_id: input.unit_id,
    unit_revision: revision,
    check: score.check,
    check_version: score.check_version,
    check_passed: score.passed,
    check_value: score.value,
    agrees,
    verdict_value: input.verdict_value ?? null,
    expected: input.expected ?? null,
    reviewer: input.reviewer ?? who.reviewer,
    note: input.note,
    labels: [...new Set(input.labels)],
    queue_id: input.queue_id ?? null,
    created_at_ms: who.atMs,
  });
}
