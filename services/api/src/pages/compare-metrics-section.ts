import type { MetricComparison } from '../compare-metrics.ts';
import { count, num, pValue } from './format.ts';
import { h, type Html } from './html.ts';

// The compare page's latency and cost section: B against A on duration, cost and tokens with the
// rank test and the Hodges–Lehmann shift (the same figures as /api/v1/compare's `metrics`).

const LABEL: Record<MetricComparison['metric'], string> = { duration_ms: 'duration (ms)', cost_usd: 'cost (USD)', tokens: 'tokens' };
const digits = (m: MetricComparison['metric']): number => (m === 'cost_usd' ? 6 : 0);

export function compareMetricsSection(metrics: readonly MetricComparison[], alpha: number): Html {
  const runs = metrics.find((m) => m.metric === 'duration_ms');
  const rows = metrics.map((m) => {
    const f = (x: number | null): string => (x === null ? '–' : num(x, digits(m.metric)));
    // Runs without a cost are runs no model call of which had a price: unknown, not missing.
    const side = (s: 'a' | 'b'): string => (m.metric === 'cost_usd' && m[s].median === null && (runs?.[s].n ?? 0) > 0 ? 'unpriced' : f(m[s].median));
    const [lo, hi] = m.shift.ci;
    const badge = m.verdict === 'higher' ? 'worse' : m.verdict === 'lower' ? 'better' : 'neutral';
    return h`<tr data-metric="${m.metric}" data-verdict="${m.verdict}">
<td><strong>${LABEL[m.metric]}</strong></td>
<td class="num" data-a>${side('a')}<div class="muted">n = ${count(m.a.n)}</div></td>
<td class="num" data-b>${side('b')}<div class="muted">n = ${count(m.b.n)}</div></td>
<td class="num" data-shift>${f(m.shift.estimate)}<div class="muted">${lo === null || hi === null ? '' : `${f(lo)} – ${f(hi)}`}</div></td>
<td class="num" data-p>${m.p_value === null ? '–' : pValue(m.p_value)}<div class="muted">${m.method ?? ''}</div></td>
<td><span class="badge ${badge}">${m.verdict}</span></td></tr>`;
  });
  return h`<h2>Latency and cost</h2>
<p class="sub">Medians per side; B − A is the Hodges–Lehmann shift (the median of all differences) with its distribution-free 95% interval; p from the Mann–Whitney U test (exact for small samples without ties). Verdict at p &lt; ${alpha}.</p>
<div class="table-wrap"><table class="compact" data-compare-metrics><thead><tr><th>metric</th><th class="num">A median</th><th class="num">B median</th><th class="num">B − A</th><th class="num">p-value</th><th>verdict</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
