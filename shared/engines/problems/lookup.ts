import { stableId } from './hash.ts';
import { groupingKey, isFailure, signatureOf, type FailureScore, type FailureUnit } from './signature.ts';
import { createTemplateMiner, type TemplateMinerState } from './template-miner.ts';

/**
 * The id of the problem a failed unit belongs to, computed as the book computes it, against the
 * book's templates as stored (read-only): the unit page's badge for any unit, not only sampled ones.
 * Null when the unit did not fail, or its text matches no template the book has mined.
 */
export function problemIdFor(unit: FailureUnit, scores: readonly FailureScore[], miner: TemplateMinerState): string | null {
  if (!isFailure(unit, scores)) return null;
  const sig = signatureOf(unit, scores);
  const needsTemplate = sig.cause === 'unit_error' || sig.cause === 'check';
  const template = needsTemplate ? createTemplateMiner({}, miner).match(sig.text) : null;
  if (needsTemplate && !template) return null;
  return stableId(groupingKey(sig, template?.id ?? ''));
}
