import type { Context } from 'hono';
import { z } from 'zod';
import { compareSide } from '../monitoring-routes.ts';
import { queryCompare, type CompareAnswer } from '../monitoring-queries.ts';
import { UNIT_FILTER_NAMES, type UnitFilterValues } from '../query-params.ts';
import type { ApiEnv } from '../route.ts';
import { PALETTE, intervalChart } from './charts.ts';
import { compareMetricsSection } from './compare-metrics-section.ts';
import { PageFilterParams, PageWindowParams, WINDOWS, parsePageQuery, windowOf } from './filters.ts';
import { checkHref, count, num, pValue, pct, pointsDelta, unitHref, utc, withQuery } from './format.ts';
import { addToDatasetForm, unitsCheckbox } from './dataset-select.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';

// B against A per check (`/compare?a.agent_version=v1&b.agent_version=v2`): both rates with their
// intervals, the test and p-value, the verdict, most worse first; and a button that turns the
// comparison into a regression alert rule that notifies the address given (posted as JSON to the API by /assets/app.js).

const sideParams = (side: 'a' | 'b') => Object.fromEntries(UNIT_FILTER_NAMES.map((k) => [`${side}.${k}`, PageFilterParams[k]])) as Record<string, z.ZodType>;
const CompareQuery = z.object({
  ...PageWindowParams,
  ...PageFilterParams,
  ...sideParams('a'),
  ...sideParams('b'),
  alpha: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().gt(0).lt(1).default(0.05)),
});

const describe = (f: UnitFilterValues): string => {
  const parts = UNIT_FILTER_NAMES.filter((k) => f[k] !== undefined).map((k) => `${k}=${String(f[k])}`);
  return parts.length > 0 ? parts.join(', ') : 'all units';
};

/** The regression rule this comparison describes: A is the baseline, B the candidate. */
function ruleFromComparison(check: string, a: UnitFilterValues, b: UnitFilterValues, alpha: number, window: string): Record<string, unknown> {
  // `notify` is filled in by the row's form: a rule from this page always notifies somebody.
  return { kind: 'regression', name: `${check}: ${describe(b)} vs ${describe(a)}`, check, baseline: a, candidate: b, alpha, window, notify: [] };
}

function sideForm(side: 'a' | 'b', q: Record<string, unknown>): Html {
  const v = (k: string): string => (typeof q[`${side}.${k}`] === 'string' ? (q[`${side}.${k}`] as string) : '');
  return h`<fieldset class="card"><legend><strong>${side === 'a' ? 'A (baseline)' : 'B (candidate)'}</strong></legend><div class="filters">
<label>agent<input name="${side}.agent" value="${v('agent')}" placeholder="any"></label>
<label>version<input name="${side}.agent_version" value="${v('agent_version')}" placeholder="any"></label>
<label>environment<input name="${side}.environment" value="${v('environment')}" placeholder="any"></label></div></fieldset>`;
}

/**
 * The regression rule of one row, created only with somebody to notify: the form asks where (an
 * email address, a Slack or other webhook URL, a PagerDuty key) and /assets/app.js posts the rule.
 */
function alertOnThis(check: string, rule: Record<string, unknown>): Html {
  return h`<details class="alert-on" data-result-scope><summary class="button secondary" title="Create a regression alert rule: B against A on ${check}">Alert on this</summary>
<form data-create-rule data-rule="${JSON.stringify(rule)}"><label>notify<select name="type"><option value="email">email address</option><option value="slack">Slack webhook URL</option><option value="webhook">webhook URL</option><option value="pagerduty">PagerDuty routing key</option></select></label>
<label>to<input name="target" required maxlength="2000" placeholder="oncall@example.com"></label><button type="submit">Create rule</button></form><div data-result hidden></div></details>`;
}

function table(r: CompareAnswer, a: UnitFilterValues, b: UnitFilterValues, alpha: number, window: string): Html {
  const rows = r.comparisons.map((cmp) => {
    const isRate = cmp.type === 'pass_fail';
    const fmt = (v: number): string => (isRate ? pct(v, 0) : num(v, 2));
    const full = (x: number | null): string => (x === null ? '–' : isRate ? pct(x) : num(x));
    const ci = (c: readonly [number | null, number | null] | null): string => (c && c[0] !== null && c[1] !== null ? `${full(c[0])} – ${full(c[1])}` : '');
    const hi = isRate ? 1 : Math.max(1, cmp.a.ci?.[1] ?? 0, cmp.b.ci?.[1] ?? 0);
    const lo = isRate ? 0 : Math.min(0, cmp.a.ci?.[0] ?? 0, cmp.b.ci?.[0] ?? 0);
    const d = cmp.difference.value;
    const rule = ruleFromComparison(cmp.check, a, b, alpha, window);
    return h`<tr data-check="${cmp.check}" data-verdict="${cmp.verdict}">
<td><a href="${checkHref(cmp.check)}"><strong>${cmp.check}</strong></a><div class="muted">${isRate ? 'pass rate' : 'mean'}</div></td>
<td class="num" data-a><span class="big">${full(cmp.a.rate)}</span><div class="muted">${ci(cmp.a.ci)}</div><div class="muted">n = ${count(cmp.a.n)}</div></td>
<td class="num" data-b><span class="big">${full(cmp.b.rate)}</span><div class="muted">${ci(cmp.b.ci)}</div><div class="muted">n = ${count(cmp.b.n)}</div></td>
<td>${intervalChart([{ label: 'A', value: cmp.a.rate, ci: cmp.a.ci, color: '#7a8599' }, { label: 'B', value: cmp.b.rate, ci: cmp.b.ci, color: PALETTE[0] }], { format: fmt, min: lo, max: hi, width: 170 })}</td>
<td class="num ${d === null || d === 0 ? '' : d < 0 ? 'down' : 'up'}" data-diff>${d === null ? '–' : isRate ? pointsDelta(d) : num(d)}<div class="muted">${ci(cmp.difference.ci)}</div></td>
<td class="num" data-p>${pValue(cmp.p_value)}<div class="muted">${cmp.test}</div></td>
<td><span class="badge ${cmp.verdict === 'worse' ? 'worse' : cmp.verdict === 'better' ? 'better' : 'neutral'}">${cmp.verdict === 'no significant difference' ? 'no difference' : cmp.verdict}</span>${cmp.failing_units.length > 0 ? h`<div><a href="${unitHref(cmp.failing_units[0].unit_id)}">a failing B unit</a></div>` : null}${alertOnThis(cmp.check, rule)}</td>
<td>${cmp.failing_units.length > 0 ? unitsCheckbox(cmp.failing_units.map((u) => u.unit_id), String(cmp.failing_units.length), `select the ${cmp.failing_units.length} failing B units of ${cmp.check}`) : null}</td>
</tr>`;
  });
  return h`<div class="table-wrap"><table class="compact" data-compare><thead><tr><th>check</th><th class="num">A</th><th class="num">B</th><th>95% intervals</th><th class="num">B − A</th><th class="num">p-value</th><th>verdict (p &lt; ${alpha})</th><th>select</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export async function comparePage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const parsed = parsePageQuery(c, CompareQuery);
  if (!parsed.ok) return problemPage(c, 400, 'Invalid comparison', parsed.error);
  const q = parsed.value as z.output<typeof CompareQuery> & Record<string, unknown>;
  const a = compareSide(q, 'a');
  const b = compareSide(q, 'b');
  const { from, to } = windowOf(q, deps.now());
  const chosen = JSON.stringify(a) !== JSON.stringify(b);
  const result = chosen ? await queryCompare(deps.store, { project: c.get('project'), a, b, alpha: q.alpha, from, to }) : null;
  const form = h`<form method="get" action="/compare"><div class="two">${sideForm('a', q)}${sideForm('b', q)}</div>
<div class="filters"><label>window<select name="window">${Object.keys(WINDOWS).map((w) => h`<option value="${w}" ${q.window === w ? h`selected` : null}>last ${w}</option>`)}</select></label>
<label>α<input name="alpha" value="${String(q.alpha)}"></label><button type="submit">Compare</button></div></form>`;
  let content: Html;
  if (!result) content = h`<div class="card">Choose two groups that differ, for example version <code>v1</code> as A and <code>v2</code> as B.</div>`;
  else if (!result.ok) content = h`<div class="msg err">${result.error}</div>`;
  else if (result.value.comparisons.length === 0) content = h`<div class="card">No scores for either side in this window.</div>`;
  else content = h`<div data-dataset-scope>${table(result.value, a, b, q.alpha, q.window)}${addToDatasetForm()}</div>`;
  if (result?.ok) content = h`${content}${compareMetricsSection(result.value.metrics, q.alpha)}`;
  const apiHref = withQuery('/api/v1/compare', { ...Object.fromEntries(Object.entries(a).map(([k, v]) => [`a.${k}`, String(v)])), ...Object.fromEntries(Object.entries(b).map(([k, v]) => [`b.${k}`, String(v)])), alpha: q.alpha, from, to });
  const body = h`<h1>Compare</h1>
<p class="sub">B (${describe(b)}) against A (${describe(a)}), ${utc(from)} – ${utc(to)}. Most worse first. Pass/fail checks: two-proportion z-test (Fisher's exact test for small counts) and Wilson intervals; score checks: Mann–Whitney U and normal intervals.</p>
${form}${content}
${chosen ? h`<p class="muted">As JSON: <a href="${apiHref}">/api/v1/compare</a></p>` : null}`;
  return sendPage(c, layout(c, { title: 'Compare', section: 'compare', body }));
}
