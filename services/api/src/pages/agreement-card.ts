import type { CheckAgreement } from '../../../../shared/engines/review/index.ts';
import { count, num, pct } from './format.ts';
import { h, type Html } from './html.ts';

// A check's agreement with people's reviews, per check version, and between reviewers.

const kappa = (k: number | null): string => (k === null ? '–' : k.toFixed(3));

function versionRow(a: CheckAgreement): Html {
  const b = a.binary;
  if (b) {
    const ag = b.agreement;
    return h`<tr data-agreement-version="${a.version ?? ''}"><td><code>${a.version ?? 'all'}</code></td><td class="num" data-agreement-rate>${count(ag.successes)}/${count(ag.total)} (${pct(ag.proportion)})</td><td class="num" data-agreement-ci>${pct(ag.lower)} – ${pct(ag.upper)}</td><td class="num" data-kappa>${kappa(b.kappa)}</td><td class="num">${pct(b.fail_precision)}</td><td class="num">${pct(b.fail_recall)}</td><td class="muted">fail/fail ${b.confusion.fail_fail}, fail/pass ${b.confusion.fail_pass}, pass/fail ${b.confusion.pass_fail}, pass/pass ${b.confusion.pass_pass}</td></tr>`;
  }
  const s = a.score;
  return h`<tr data-agreement-version="${a.version ?? ''}"><td><code>${a.version ?? 'all'}</code></td><td class="num">${count(a.reviews)} reviews</td><td colspan="5">mean absolute difference ${num(s?.mean_abs_diff ?? null)}, Spearman ${num(s?.spearman ?? null)}</td></tr>`;
}

/** The check page's agreement section: one row per reviewed version, and people with each other. */
export function agreementSection(perVersion: readonly CheckAgreement[], all: CheckAgreement | null): Html {
  if (perVersion.length === 0 || !all) return h`<p class="muted" data-agreement>No reviews yet: add the check's failures to a <a href="/review-queues">review queue</a>.</p>`;
  const ir = all.inter_reviewer;
  return h`<div data-agreement><div class="table-wrap"><table><thead><tr><th>version</th><th class="num">agreement</th><th class="num">95% Wilson</th><th class="num">Cohen's κ</th><th class="num">fail precision</th><th class="num">fail recall</th><th>check/people</th></tr></thead><tbody>${perVersion.map(versionRow)}</tbody></table></div>
<div class="card" data-inter-reviewer>${ir.items === 0 ? h`<span class="muted">No unit has two reviewers yet.</span>` : h`Between reviewers (${ir.raters} people, ${count(ir.items)} units): <span data-pairwise>${count(ir.agreeing_pairs)}/${count(ir.pairs)} pairs agree (${pct(ir.pairwise_agreement)})</span>, <span data-inter-kappa>${ir.cohen_kappa !== null ? `Cohen's κ ${kappa(ir.cohen_kappa)}` : `Fleiss' κ ${kappa(ir.fleiss_kappa)}`}</span>`}</div></div>`;
}
