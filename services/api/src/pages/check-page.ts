import type { Context } from 'hono';
import { z } from 'zod';
import type { ScoreAggregate, ValueCount } from '../../../../shared/adapters/store/index.ts';
import { ScoreCursorSchema, cursorParam, nextScoreCursor } from '../cursor.ts';
import { querySummary } from '../monitoring-queries.ts';
import { seriesPoints } from '../monitoring.ts';
import { toScoreFilters } from '../query-params.ts';
import type { ApiEnv } from '../route.ts';
import { PALETTE, barChart, timeChart, type Bar, type ChartSeries } from './charts.ts';
import { definitionBlock, methodOf } from './check-definition.ts';
import { PageFilterParams, PageWindowParams, clampNote, filterForm, filtersOf, fitBucket, parsePageQuery, viewParams, windowOf } from './filters.ts';
import { checkHref, count, num, pct, unitHref, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { runsWhere } from './plan-section.ts';
import { headline } from './overview-page.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';
import { agreementSection } from './agreement-card.ts';
import { addToDatasetForm, unitCheckbox } from './dataset-select.ts';
import { checkAgreement, createReviewRepository } from '../../../../shared/engines/review/index.ts';

// One check: its series by agent version with 95% bands (bucket picker), the distribution of its
// values, the failing units of the window (paged), its definition and versions.

const CheckQuery = z.object({
  ...PageWindowParams,
  ...PageFilterParams,
  bucket: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
  cursor: cursorParam(ScoreCursorSchema).optional(),
});

const FAILING_PAGE = 25;
/** Lines one chart shows: the versions with the most scores. */
const MAX_LINES = 8;
const MAX_BARS = 20;

/** Values into at most 20 bars: one per distinct value when few, else equal-width bins. */
export function distributionBars(counts: readonly ValueCount[]): Bar[] {
  if (counts.length === 0) return [];
  if (counts.length <= MAX_BARS) return counts.map((v) => ({ label: num(v.value, 2), count: v.count }));
  const lo = counts[0].value;
  const hi = counts[counts.length - 1].value;
  const width = (hi - lo) / MAX_BARS;
  const bars = Array.from({ length: MAX_BARS }, (_, i) => ({ label: num(lo + i * width, 2), count: 0 }));
  for (const v of counts) bars[Math.min(MAX_BARS - 1, Math.floor((v.value - lo) / width))].count += v.count;
  return bars;
}

function groupSeries(rows: readonly ScoreAggregate[]): Array<{ label: string; rows: ScoreAggregate[]; n: number }> {
  const groups = new Map<string, { label: string; rows: ScoreAggregate[]; n: number }>();
  for (const r of rows) {
    const label = `${r.agent ?? '(no agent)'} ${r.agent_version ?? '(no version)'}`;
    const g = groups.get(label) ?? { label, rows: [], n: 0 };
    g.rows.push(r);
    g.n += r.n;
    groups.set(label, g);
  }
  return [...groups.values()].sort((a, b) => b.n - a.n).slice(0, MAX_LINES).sort((a, b) => a.label.localeCompare(b.label));
}

export async function checkPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const name = c.req.param('name') ?? '';
  const parsed = parsePageQuery(c, CheckQuery);
  if (!parsed.ok) return problemPage(c, 400, 'Invalid filters', parsed.error);
  const q = parsed.value;
  const project = c.get('project');
  const nowMs = deps.now();
  const { from, to } = windowOf(q, nowMs);
  const fit = fitBucket(q.bucket, nowMs, from, q.to);
  const sw = fit.window;
  const filters = toScoreFilters(filtersOf(q));
  const base = { ...filters, project, check: name };
  const [summary, bucketed, values, failing, registry, reviews] = await Promise.all([
    querySummary(deps.store, nowMs, { project, from, to, filters: { ...filters, check: name } }),
    deps.store.aggregateScores({ ...base, fromMs: sw.from, toMs: sw.to, bucketMs: sw.bucketMs, splitByAgent: true }),
    deps.store.valueCounts({ ...base, fromMs: from, toMs: to }),
    deps.store.queryScores({ ...base, status: 'ok', passed: false, endFromMs: from, endToMs: to, limit: FAILING_PAGE, ...(q.cursor ? { after: q.cursor } : {}) }),
    deps.registryFor(project),
    createReviewRepository(deps.store).listReviews({ project, check: name }),
  ]);
  const agreementAll = reviews.length > 0 ? checkAgreement(name, reviews) : null;
  const agreementByVersion = (agreementAll?.versions ?? []).map((v) => checkAgreement(name, reviews, v.version));
  if (!summary.ok) return problemPage(c, 400, 'Invalid window', summary.error);
  const stats = summary.value.checks.find((s) => s.check === name);
  const definition = registry?.definition(name);
  if (!stats && !definition) return problemPage(c, 404, 'No such check', `No check named "${name}" is defined, and it has no scores in this window.`);
  const cur = stats ? headline(stats) : { value: null, ci: null, isRate: definition?.outputType !== 'score' };
  const isRate = cur.isRate;
  const fmt = (v: number): string => (isRate ? pct(v, 0) : num(v, 2));

  const series: ChartSeries[] = groupSeries(bucketed).map((g, i) => ({
    label: g.label,
    color: PALETTE[i % PALETTE.length],
    points: seriesPoints(name, g.rows, sw.bucketMs, sw.from, sw.to).map((p) => ({
      t: p.t,
      y: isRate ? p.pass_rate : p.mean,
      lo: isRate ? p.wilson_low : null,
      hi: isRate ? p.wilson_high : null,
      title: `${utc(p.t)}: ${isRate ? `${pct(p.pass_rate)} [${pct(p.wilson_low)}–${pct(p.wilson_high)}]` : num(p.mean)}, n = ${p.n}`,
    })),
  }));
  const yMax = isRate ? 1 : Math.max(1, ...values.map((v) => v.value));
  const yMin = isRate ? 0 : Math.min(0, ...values.map((v) => v.value));
  const view = viewParams(q);
  const picker = h`<div class="seg" data-bucket-picker>bucket: ${(['1m', '5m', '1h', '1d'] as const).map((b) => h`<a href="${checkHref(name, { ...view, bucket: b })}" class="${b === fit.bucket ? 'active' : ''}">${b}</a>`)}</div>${clampNote(fit)}`;
  const next = nextScoreCursor(failing, FAILING_PAGE);
  const failingTable: Html =
    failing.length === 0
      ? h`<p class="muted">${q.cursor ? 'No more failing units.' : 'No failing units in this window.'}</p>`
      : h`<div data-dataset-scope><div class="table-wrap"><table data-failing-units><thead><tr><th><span class="sr-only">select</span></th><th>unit</th><th>agent</th><th>version</th><th class="num">value</th><th>why</th><th>unit ended</th></tr></thead><tbody>
${failing.map((s) => h`<tr><td>${unitCheckbox(s.unit_id)}</td><td><a href="${unitHref(s.unit_id)}" data-unit-link title="${s.unit_id}"><code>${s.unit_id.length > 16 ? `${s.unit_id.slice(0, 16)}…` : s.unit_id}</code></a></td><td>${s.agent_name ?? '–'}</td><td>${s.agent_version ?? '–'}</td><td class="num">${num(s.value)}</td><td>${s.explanation.length > 160 ? `${s.explanation.slice(0, 160)}…` : s.explanation}</td><td class="muted nowrap">${utc(s.unit_end_time_ms)}</td></tr>`)}
</tbody></table></div>${addToDatasetForm()}</div>`;
  const history = registry?.history(name) ?? [];
  const where = deps.plans ? runsWhere(await deps.plans.load(c.get('project')), name) : null;
  const body = h`<p class="muted"><a href="${withQuery('/', view)}">Overview</a> › check</p>
<h1>${name}</h1>
<p class="sub">${definition ? h`${definition.description} · <span class="badge neutral">${methodOf(definition)}</span> ${where ? h`<span class="badge ok">runs on ${where}</span>` : h`<span class="badge neutral">not in the scoring plan</span>`}` : 'Not in this server\'s registry (scores only).'}</p>
${filterForm(`/checks/${encodeURIComponent(name)}`, q, h`<input type="hidden" name="bucket" value="${q.bucket}">`)}
<div class="card"><span class="big" data-rate>${cur.value === null ? '–' : fmt(cur.value)}</span> <span class="muted">${isRate ? 'pass rate' : 'mean'}${cur.ci && cur.ci[0] !== null && cur.ci[1] !== null ? `, 95% interval ${fmt(cur.ci[0])} – ${fmt(cur.ci[1])}` : ''}; n = ${count(stats?.n ?? 0)} decided, ${count(stats?.error_count ?? 0)} errors, ${count(stats?.not_run_count ?? 0)} not run; ${utc(from)} – ${utc(to)}</span></div>
<h2>${isRate ? 'Pass rate' : 'Mean'} by agent version</h2>
<div class="card">${picker}${timeChart({ series, from: sw.from, to: sw.to, bucketMs: sw.bucketMs, yMin, yMax, yFormat: fmt, yLabel: isRate ? 'pass rate (%)' : 'mean value' })}</div>
<div class="two"><div>
<h2>Distribution of values</h2>
<div class="card">${values.length === 0 ? h`<p class="muted">No values in this window.</p>` : barChart(distributionBars(values), { xLabel: 'value', yLabel: 'scores', height: 240 })}</div>
</div><div>
<h2>Definition</h2>
<div class="card">${definition ? definitionBlock(definition) : h`<p class="muted">This server was started without the check's definition.</p>`}</div>
<h2>Versions</h2>
${history.length === 0 ? h`<p class="muted">No versions known.</p>` : h`<div class="table-wrap"><table data-versions><thead><tr><th>version</th><th>kind</th><th></th></tr></thead><tbody>${[...history].reverse().map((v, i) => h`<tr><td><code>${v.check.version}</code></td><td>${v.definition.kind}</td><td>${i === 0 ? h`<span class="badge ok">current</span>` : null}</td></tr>`)}</tbody></table></div>`}
</div></div>
<h2 id="agreement">Agreement with people's reviews</h2>${agreementSection(agreementByVersion, agreementAll)}
<h2 id="failing">Failing units</h2>${failingTable}
<div class="pager">${q.cursor ? h`<a href="${checkHref(name, { ...view, bucket: q.bucket })}#failing">First page</a>` : null}${next ? h`<a href="${checkHref(name, { ...view, bucket: q.bucket, cursor: next })}#failing" data-next-page>Next page</a>` : null}</div>
<p class="muted">As JSON: <a href="${withQuery('/api/v1/series', { check: name, bucket: fit.bucket, ...filtersOf(q), from: sw.from, to: sw.to })}">/api/v1/series</a></p>`;
  return sendPage(c, layout(c, { title: name, section: 'checks', body }));
}
