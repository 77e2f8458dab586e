import type { Context } from 'hono';
import { problemDetail, problemViews, type ProblemView } from '../problem-views.ts';
import type { ApiEnv } from '../route.ts';
import { count, pct, pValue, unitHref, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';

// Problems (issue 37): failed units grouped by signature, ranked by what they cost now or by
// growth, and one problem's trend, versions, templates and sample units. Titles, templates, agent
// and tool names come from traces: every one goes through `h` and shows as text.

const STATE_CLASS: Record<ProblemView['state'], string> = { new: 'fail', regressed: 'fail', ongoing: 'error', resolved: 'pass' };

export function problemHref(id: string): string {
  return `/problems/${encodeURIComponent(id)}`;
}

function stateBadge(p: ProblemView): Html {
  return h`<span class="badge ${STATE_CLASS[p.state]}" data-state>${p.state}</span>`;
}

function growthText(p: ProblemView): Html {
  const grew = p.growing_versions.length > 0 ? h` <span class="badge worse" data-growing>growing in ${p.growing_versions.join(', ')}</span>` : null;
  return h`${p.recent - p.previous >= 0 ? '+' : ''}${count(p.recent - p.previous)}${grew}`;
}

function row(p: ProblemView): Html {
  return h`<tr data-problem="${p.id}"><td><a href="${problemHref(p.id)}">${p.title}</a></td><td>${stateBadge(p)}</td><td><code>${p.cause}</code></td><td class="num" data-recent>${count(p.recent)}</td><td class="num">${growthText(p)}</td><td class="num" data-count>${count(p.count)}</td><td class="nowrap">${utc(p.last_seen_ms)}</td></tr>`;
}

export async function problemsPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const sort = c.req.query('sort') === 'growth' ? 'growth' : 'cost';
  const problems = await problemViews(deps.store, c.get('project'), deps.now(), { sort, includeDismissed: false });
  const body = h`<h1>Problems</h1>
<p class="sub">Failed units grouped by a deterministic signature (the failing tool and its error class, a loop, a hand-off never returned, the run's error, or the failing check and its explanation's template), per agent. Ranked by the units each cost in the last 24 hours, or by growth.</p>
<div class="seg"><a href="${withQuery('/problems', { sort: 'cost' })}" class="${sort === 'cost' ? 'active' : ''}">by units now</a><a href="${withQuery('/problems', { sort: 'growth' })}" class="${sort === 'growth' ? 'active' : ''}">by growth</a></div>
${problems.length === 0
    ? h`<p class="muted" data-empty>No problems yet: none of the failed units scored so far.</p>`
    : h`<div class="table-wrap"><table data-problems><thead><tr><th>problem</th><th>state</th><th>cause</th><th class="num">units, 24 h</th><th class="num">vs the 24 h before</th><th class="num">units, all</th><th>last seen</th></tr></thead><tbody>${problems.map(row)}</tbody></table></div>`}
<p class="muted">As JSON: <a href="/api/v1/problems">/api/v1/problems</a></p>`;
  return sendPage(c, layout(c, { title: 'Problems', section: 'problems', body }));
}

const ACTION_LABELS = { queue: 'Review its units', dataset: 'Make a dataset', 'alert-rule': 'Alert on its changes', 'proposed-check': 'Propose a check' } as const;

export async function problemDetailPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const detail = id.length <= 64 ? await problemDetail(deps.store, c.get('project'), id, deps.now()) : null;
  if (!detail) return problemPage(c, 404, 'No such problem', 'This project has no problem with that id.');
  const { problem: p, trend, versions } = detail;
  const body = h`<h1 data-title>${p.title}</h1>
<p class="sub">${stateBadge(p)} <code>${p.cause}</code> · ${count(p.count)} units · first seen ${utc(p.first_seen_ms)} · last seen ${utc(p.last_seen_ms)}${p.dismissed ? h` · <span class="badge neutral">dismissed: ${p.dismissed.reason}</span>` : null}</p>
<div class="two">
<div class="card"><strong>Signature</strong><ul data-signature>
<li>agent: ${p.agent ?? '–'}</li>
${p.tool ? h`<li>tool: <code>${p.tool}</code> (${p.error_class ?? 'no error class'})</li>` : null}
${p.shape ? h`<li>shape: <code>${p.shape}</code></li>` : null}
${p.point ? h`<li>went wrong at step ${count(p.point.step)} of agent ${p.point.agent ?? '–'}</li>` : null}
<li>failing checks: ${Object.entries(p.checks).map(([k, n]) => h`<code>${k}</code> ×${count(n)} `)}</li>
</ul></div>
<div class="card"><strong>Templates</strong><ul data-templates>${p.templates.slice(0, 5).map((t) => h`<li><code>${t.template}</code> ×${count(t.count)}</li>`)}</ul></div>
</div>
<h2>Act on it</h2>
<div class="card" data-problem-actions data-result-scope>${(['queue', 'dataset', 'alert-rule', 'proposed-check'] as const).map((a) => h`<button type="button" data-problem-action="${a}" data-url="${`/api/v1/problems/${encodeURIComponent(p.id)}/${a}`}">${ACTION_LABELS[a]}</button> `)}<div data-result hidden></div>
<div data-proposal data-result-scope hidden><p class="muted">The proposed check, tried on the problem's units (they should fail it) and recent units of its agent that failed nothing (they should pass); not saved until you save it.</p><pre data-proposal-code></pre><button type="button" data-save-proposal>Save this check</button><div data-result hidden></div></div></div>
<h2>Per version</h2>
<div class="table-wrap"><table data-versions><thead><tr><th>version</th><th class="num">units</th><th class="num">with it</th><th class="num">rate (95% interval)</th><th>against</th><th class="num">always-valid p</th><th></th></tr></thead><tbody>
${versions.map((v) => h`<tr data-version="${v.version ?? ''}"><td>${v.version ?? '(none)'}</td><td class="num">${count(v.units)}</td><td class="num">${count(v.occurrences)}</td><td class="num">${pct(v.rate)} [${pct(v.interval[0])}, ${pct(v.interval[1])}]</td><td>${v.baseline ?? '–'}</td><td class="num">${v.p_value === null ? '–' : pValue(v.p_value)}</td><td>${v.growing ? h`<span class="badge worse">growing</span>` : null}</td></tr>`)}
</tbody></table></div>
<h2>Trend</h2>
<div class="table-wrap"><table data-trend class="compact"><thead><tr><th>hour (UTC)</th><th class="num">units</th></tr></thead><tbody>${trend.map((b) => h`<tr><td>${utc(b.t)}</td><td class="num">${count(b.units)}</td></tr>`)}</tbody></table></div>
<h2>Sample units</h2>
<ul data-sample>${p.sample.map((u) => h`<li><a href="${unitHref(u)}"><code>${u}</code></a></li>`)}</ul>
<p class="muted">As JSON: <a href="${`/api/v1/problems/${encodeURIComponent(p.id)}`}">/api/v1/problems/${p.id}</a></p>`;
  return sendPage(c, layout(c, { title: p.title, section: 'problems', body }));
}
