import type { Store } from '../../../../shared/adapters/store/index.ts';
import { queryMetricSeries, type MetricFilters, type MetricStat } from '../metric-queries.ts';
import { sparkline } from './charts.ts';
import { num, pct, withQuery } from './format.ts';
import { h, type Html } from './html.ts';

// The overview's operations figures: volume, error rate, p95 latency and cost per day
// over the last two weeks, from the same queries as GET /api/v1/metrics/series.

const DAYS = 14;
const DAY = 86_400_000;

const TILES: ReadonlyArray<{ label: string; metric: 'volume' | 'error_rate' | 'duration_ms' | 'cost_usd'; stat: MetricStat; format: (v: number | null) => string }> = [
  { label: 'runs per day', metric: 'volume', stat: 'count', format: (v) => num(v, 0) },
  { label: 'error rate', metric: 'error_rate', stat: 'mean', format: (v) => pct(v) },
  { label: 'p95 latency', metric: 'duration_ms', stat: 'p95', format: (v) => (v === null ? '–' : `${(v / 1000).toFixed(2)} s`) },
  { label: 'cost per day', metric: 'cost_usd', stat: 'sum', format: (v) => (v === null ? '–' : `$${v.toFixed(2)}`) },
];

export async function operationsCard(store: Store, project: string, nowMs: number, filters: MetricFilters): Promise<Html> {
  const to = Math.ceil((nowMs + 1) / DAY) * DAY;
  const from = to - DAYS * DAY;
  const answers = await Promise.all(TILES.map((t) => queryMetricSeries(store, nowMs, { project, metric: t.metric, stat: t.stat, bucket: '1d', from, to, filters })));
  const runsToday = answers[0].ok ? (answers[0].value.points.at(-1)?.value ?? 0) : 0;
  const tiles = TILES.map((t, i) => {
    const a = answers[i];
    if (!a.ok) return h``;
    const points = a.value.points.map((p) => ({ t: p.t, y: p.value }));
    const today = points.at(-1)?.y ?? null;
    const hi = Math.max(...points.map((p) => p.y ?? 0), t.metric === 'error_rate' ? 0.01 : 1e-9);
    const href = withQuery('/api/v1/metrics/series', { metric: t.metric, stat: t.stat, bucket: '1d', from, to });
    return h`<div class="tile" data-ops="${t.metric}"><div class="muted">${t.label} (today)</div><div class="num big" data-ops-value>${t.metric === 'cost_usd' && today === null && (runsToday ?? 0) > 0 ? 'unpriced' : t.format(today)}</div>${sparkline(points, { label: `${t.label}, last ${DAYS} days`, yMin: 0, yMax: hi, width: 160 })}<div class="muted"><a href="${href}">JSON</a></div></div>`;
  });
  return h`<div class="card" data-operations><strong>Operations</strong> <span class="muted">per UTC day, last ${DAYS} days (cost by the price table, <a href="/agents">per agent</a>)</span><div class="grid4">${tiles}</div></div>`;
}
