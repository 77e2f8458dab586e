import type { Store } from '../../../shared/adapters/store/index.ts';
import { createReviewRepository, measuredAgreement } from '../../../shared/engines/review/index.ts';
import type { CheckRegistry } from '../../../shared/engines/checks/index.ts';

/** min_samples when a monitor gives min_agreement alone. */
const DEFAULT_MIN_SAMPLES = 20;

/**
 * A monitor's `min_agreement` guard: each check's current version (the one the monitor sets live)
 * must have agreed with people at least that often, over at least `minSamples` reviews, measured by
 * a recorded try of that version or by the reviews of it. Null when it does; else why not.
 */
export async function agreementShortfall(store: Store, registry: CheckRegistry, project: string, checks: readonly string[], minAgreement: number, minSamples = DEFAULT_MIN_SAMPLES): Promise<string | null> {
  const reviews = await createReviewRepository(store).listReviews({ project });
  const problems: string[] = [];
  for (const name of checks) {
    const version = registry.get(name)?.version;
    if (version === undefined) continue;
    const m = await measuredAgreement(store, reviews, project, name, version);
    const where = `check "${name}" version ${version}`;
    if (!m || m.total < minSamples) {
      problems.push(`${where} has ${m?.total ?? 0} measured reviews, min_samples is ${minSamples} (POST /api/v1/checks/${name}/try or \`tracecheck checks try\` measures it against the reviews)`);
    } else if (m.successes / m.total < minAgreement) {
      problems.push(`${where} agrees with people on ${m.successes}/${m.total} (${((100 * m.successes) / m.total).toFixed(1)}%, from its ${m.source === 'try' ? 'recorded try' : 'reviews'}), below min_agreement ${minAgreement}`);
    }
  }
  return problems.length > 0 ? `min_agreement not reached: ${problems.join('; ')}` : null;
}
