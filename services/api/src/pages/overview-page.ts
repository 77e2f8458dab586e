import type { Context } from 'hono';
import { z } from 'zod';
import { ruleCheck, type AlertRule, type AlertState } from '../../../../shared/engines/alerts/index.ts';
import type { ScoreAggregate } from '../../../../shared/adapters/store/index.ts';
import { querySummary, type Bucket } from '../monitoring-queries.ts';
import { rateStats, seriesPoints, type RateStats } from '../monitoring.ts';
import { toScoreFilters } from '../query-params.ts';
import type { ApiEnv } from '../route.ts';
import { PALETTE, intervalChart, sparkline } from './charts.ts';
import { PageFilterParams, PageWindowParams, filterForm, fitBucket, filtersOf, parsePageQuery, viewParams, windowOf, type WindowName } from './filters.ts';
import { checkHref, count, num, pct, pointsDelta, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';
import { operationsCard } from './operations-card.ts';
import { pipelineCard } from './pipeline-card.ts';
import { readPipeline } from '../pipeline-status.ts';

// The overview: every check's current rate with its band, a sparkline, the change against the
// previous window, the same split by agent and version, and what is firing now.

const OverviewQuery = z.object({ ...PageWindowParams, ...PageFilterParams });

/** Sparkline buckets per window: a few dozen points each. */
const SPARK_BUCKET: Record<WindowName, Bucket> = { '1h': '5m', '24h': '1h', '7d': '1h', '30d': '1d' };

/** The number a check is judged by: its pass rate, or its mean for score checks. */
export function headline(s: RateStats): { value: number | null; ci: readonly [number | null, number | null] | null; isRate: boolean } {
  if (s.pass_rate !== null) return { value: s.pass_rate, ci: s.ci, isRate: true };
  return { value: s.mean, ci: s.mean_ci, isRate: false };
}

const fmt = (isRate: boolean) => (v: number): string => (isRate ? pct(v, 0) : num(v, 2));

function changeCell(cur: RateStats, prev: RateStats): Html {
  const a = headline(cur);
  const b = headline(prev);
  if (a.value === null || b.value === null) return h`<td class="num muted">–</td>`;
  const d = a.value - b.value;
  const cls = Math.abs(d) < 0.0005 ? 'muted' : d > 0 ? 'up' : 'down';
  const text = a.isRate ? pointsDelta(d) : `${d > 0 ? '+' : '−'}${Math.abs(d).toFixed(3)}`;
  return h`<td class="num ${cls}" data-change>${text}<div class="muted">was ${a.isRate ? pct(b.value) : num(b.value)}</div></td>`;
}

function firingCard(rules: AlertRule[], states: Map<string, AlertState>): Html {
  const firing = rules.filter((r) => states.get(r.id)?.state === 'firing');
  if (firing.length === 0) return h`<div class="card quiet" data-firing="0"><strong>Nothing is firing.</strong> <span class="muted">${rules.length} alert rule${rules.length === 1 ? '' : 's'} watching. <a href="/alerts">Alerts</a></span></div>`;
  return h`<div class="card firing-list" data-firing="${firing.length}"><strong>Firing now</strong>
<ul>${firing.map((r) => {
    const s = states.get(r.id)!;
    return h`<li><a href="/alerts#rule-${r.id}">${r.name}</a> <span class="badge firing">firing</span> <span class="muted">${r.kind}${ruleCheck(r) ? h` on <a href="${checkHref(ruleCheck(r)!)}">${ruleCheck(r)}</a>` : null}${s.fired_at_ms !== null ? ` since ${utc(s.fired_at_ms)}` : ''}</span></li>`;
  })}</ul></div>`;
}

function splitTable(rows: ScoreAggregate[], checks: string[], q: Record<string, unknown>): Html {
  const groups = new Map<string, { agent: string | null; version: string | null; by: Map<string, ScoreAggregate> }>();
  for (const r of rows) {
    const key = JSON.stringify([r.agent ?? null, r.agent_version ?? null]);
    const g = groups.get(key) ?? { agent: r.agent ?? null, version: r.agent_version ?? null, by: new Map<string, ScoreAggregate>() };
    g.by.set(r.check, r);
    groups.set(key, g);
  }
  if (groups.size === 0) return h``;
  const sorted = [...groups.values()].sort((a, b) => (a.agent ?? '').localeCompare(b.agent ?? '') || (a.version ?? '').localeCompare(b.version ?? ''));
  return h`<h2>By agent and version</h2>
<div class="table-wrap"><table data-split><thead><tr><th>agent</th><th>version</th>${checks.map((c) => h`<th class="num">${c}</th>`)}</tr></thead><tbody>
${sorted.map(
  (g) => h`<tr><td>${g.agent ?? h`<span class="muted">(none)</span>`}</td><td>${g.version ?? h`<span class="muted">(none)</span>`}</td>${checks.map((c) => {
    const a = g.by.get(c);
    if (!a) return h`<td class="num muted">–</td>`;
    const s = headline(rateStats(a));
    const link = checkHref(c, { ...viewParams(q), agent: g.agent ?? undefined, agent_version: g.version ?? undefined });
    return h`<td class="num"><a href="${link}" title="${s.ci && s.ci[0] !== null && s.ci[1] !== null ? `95% interval ${fmt(s.isRate)(s.ci[0])}–${fmt(s.isRate)(s.ci[1])}` : ''}">${s.value === null ? '–' : s.isRate ? pct(s.value) : num(s.value)}</a><div class="muted">n = ${count(s.isRate ? a.judged : a.valued)}</div></td>`;
  })}</tr>`,
)}</tbody></table></div>`;
}

export async function overviewPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const parsed = parsePageQuery(c, OverviewQuery);
  if (!parsed.ok) return problemPage(c, 400, 'Invalid filters', parsed.error);
  const q = parsed.value;
  const project = c.get('project');
  const nowMs = deps.now();
  const { from, to } = windowOf(q, nowMs);
  const filters = toScoreFilters(filtersOf(q));
  const spark = fitBucket(SPARK_BUCKET[q.window], nowMs, from, q.to);
  const summary = await querySummary(deps.store, nowMs, { project, from, to, filters });
  if (!summary.ok) return problemPage(c, 400, 'Invalid window', summary.error);
  const sw = spark.window;
  const [ops, bucketed, split, rules, states, pipeline] = await Promise.all([
    operationsCard(deps.store, project, nowMs, filters),
    deps.store.aggregateScores({ ...filters, project, fromMs: sw.from, toMs: sw.to, bucketMs: sw.bucketMs }),
    deps.store.aggregateScores({ ...filters, project, fromMs: from, toMs: to, splitByAgent: true }),
    deps.alerts.listRules(project),
    deps.alerts.listStates(project),
    readPipeline(deps.store, nowMs),
  ]);
  const checks = summary.value.checks;
  const rows = checks.map((s) => {
    const cur = headline(s);
    const points = seriesPoints(s.check, bucketed, sw.bucketMs, sw.from, sw.to).map((p) => ({ t: p.t, y: cur.isRate ? p.pass_rate : p.mean }));
    // Failing = ok scores with a fail verdict (score checks have a verdict when they have a threshold).
    const failing = s.pass_rate !== null ? s.n - s.passed : 0;
    const view = viewParams(q);
    return h`<tr data-check="${s.check}">
<td><a href="${checkHref(s.check, view)}"><strong>${s.check}</strong></a></td>
<td class="num big" data-rate>${cur.value === null ? '–' : cur.isRate ? pct(cur.value) : num(cur.value)}<div class="muted">${cur.isRate ? 'pass rate' : 'mean'}</div></td>
<td>${intervalChart([{ label: '', value: cur.value, ci: cur.ci, color: PALETTE[0] }], { width: 170, format: fmt(cur.isRate), ...(cur.isRate ? {} : { min: Math.min(0, cur.ci?.[0] ?? 0), max: Math.max(1, cur.ci?.[1] ?? 1) }) })}<div class="muted" data-ci>${cur.ci && cur.ci[0] !== null && cur.ci[1] !== null ? `${fmt(cur.isRate)(cur.ci[0])} – ${fmt(cur.isRate)(cur.ci[1])}` : 'no interval'}</div></td>
<td>${sparkline(points, { label: `${s.check}: ${cur.isRate ? 'pass rate' : 'mean'} per ${spark.bucket}, ${utc(sw.from)} to ${utc(sw.to)}`, ...(cur.isRate ? {} : { yMin: 0, yMax: Math.max(1, ...points.map((p) => p.y ?? 0)) }) })}</td>
${changeCell(s, s.previous)}
<td class="num" data-n>${count(s.n)}</td>
<td class="num">${failing > 0 ? h`<a href="${checkHref(s.check, view)}#failing" data-failing>${count(failing)}</a>` : '0'}</td>
<td class="num">${s.error_count + s.not_run_count > 0 ? h`<span class="badge error">${count(s.error_count)} / ${count(s.not_run_count)}</span>` : h`<span class="muted">0 / 0</span>`}</td>
</tr>`;
  });
  const body = h`<h1>Overview</h1>
<p class="sub">${utc(from)} – ${utc(to)}, compared with the ${q.window} before. Rates count decided (<code>ok</code>) scores by the unit's end time; bands are 95% Wilson intervals (normal for means).</p>
${filterForm('/', q)}
${firingCard(rules, states)}
${pipelineCard(pipeline)}
${ops}
${checks.length === 0
    ? h`<div class="card">No scores in this window. Send traces to the collector, or widen the window. <a href="/receive">What we receive</a> shows what arrived, and how to send traces.</div>`
    : h`<div class="table-wrap"><table data-overview><thead><tr><th>check</th><th class="num">now</th><th>95% interval</th><th>last ${q.window} (per ${spark.bucket})</th><th class="num">change</th><th class="num">n</th><th class="num">failing</th><th class="num">errors / not run</th></tr></thead><tbody>${rows}</tbody></table></div>`}
${splitTable(split, checks.map((s) => s.check), q)}
<p class="muted">The same numbers as JSON: <a href="${withQuery('/api/v1/checks/summary', { ...filtersOf(q), from, to })}">/api/v1/checks/summary</a></p>`;
  return sendPage(c, layout(c, { title: 'Overview', section: 'overview', body }));
}
