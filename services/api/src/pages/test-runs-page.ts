import type { Context } from 'hono';
import { compareTestRuns, type TestRunDoc } from '../../../../shared/engines/test-runs/index.ts';
import type { ApiEnv } from '../route.ts';
import { listTestRuns, readTestRun } from '../test-run-routes.ts';
import { num, pct } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';

// Test runs (run_test): every run with its per-check summary, one run's rows, and two runs side by
// side with the statistics of the compare page. Names, inputs and outputs are users' text: through `h`.

const runHref = (id: string): string => `/test-runs/${encodeURIComponent(id)}`;
const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

function metricsCell(run: TestRunDoc): Html {
  if (run.metrics.length === 0) return h`<span class="muted">no checks</span>`;
  return h`${run.metrics.map((m) => h`<div data-metric="${m.check}">${m.check}: ${m.output_type === 'pass_fail' ? pct(m.pass_rate) : num(m.mean)}${m.errors + m.not_run > 0 ? h` <span class="muted">(${m.errors} errors, ${m.not_run} not run)</span>` : null}</div>`)}`;
}

export async function testRunsPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const runs = await listTestRuns(deps.store, c.get('project'));
  const options = runs.map((r) => h`<option value="${r.id}">${r.name} (${when(r.start_time_ms)})</option>`);
  const body = h`<h1>Test runs</h1><p class="sub">Runs of <code>model_under_test.run_test</code> over a scenario set, newest first (<a href="/api/v1/test-runs">as JSON</a>).</p>
${runs.length === 0 ? h`<p class="muted">No test runs yet: register a model, create a scenario set and call run_test (docs/clients.md).</p>` : h`<div class="table-wrap"><table data-test-runs><thead><tr><th>run</th><th>model</th><th>scenario set</th><th class="num">rows</th><th>checks</th><th>started</th><th>tags</th></tr></thead><tbody>${runs.map((r) => h`<tr data-run="${r.id}"><td><a href="${runHref(r.id)}">${r.name}</a></td><td>${r.model_name}</td><td>${r.scenario_name}</td><td class="num">${r.rows.length}</td><td>${metricsCell(r)}</td><td>${when(r.start_time_ms)}</td><td>${r.tags.join(', ')}</td></tr>`)}</tbody></table></div>
<h2>Compare two runs</h2><form method="get" action="/test-runs/compare"><label>A <select name="a">${options}</select></label> <label>B <select name="b">${options}</select></label> <button type="submit">Compare</button></form>`}`;
  return sendPage(c, layout(c, { title: 'Test runs', section: 'test-runs', body }));
}

export async function testRunPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const run = id.length > 200 ? null : await readTestRun(deps.store, c.get('project'), id);
  if (!run) return problemPage(c, 404, 'No such test run', `no test run with id "${id.slice(0, 200)}" in this project`);
  const checks = run.metrics.map((m) => m.check);
  const body = h`<p class="muted"><a href="/test-runs">Test runs</a> › run</p><h1 data-run-name>${run.name}</h1>
<p class="sub">Model ${run.model_name} on scenario set ${run.scenario_name}; ${run.type}; ${when(run.start_time_ms)} (<a href="/api/v1/test-runs/${encodeURIComponent(run.id)}">as JSON</a>).</p>
<h2>Summary</h2>${metricsCell(run)}
<h2>Rows</h2><div class="table-wrap"><table data-rows><thead><tr><th>input</th><th>expected</th><th>output</th>${checks.map((name) => h`<th class="num">${name}</th>`)}</tr></thead><tbody>${run.rows.map((row) => h`<tr><td>${row.scenario_input ?? ''}</td><td>${row.scenario_result ?? ''}</td><td>${row.error !== null ? h`<span class="muted">${row.error}</span>` : (row.model_output ?? '')}</td>${checks.map((name) => {
    const s = row.scores[name];
    return h`<td class="num" title="${s?.explanation || s?.error || ''}">${s?.status === 'ok' ? (s.passed === null ? num(s.value) : s.passed ? 'pass' : 'fail') : (s?.status ?? '–')}</td>`;
  })}</tr>`)}</tbody></table></div>`;
  return sendPage(c, layout(c, { title: `Test run ${run.name}`, section: 'test-runs', body }));
}

export async function testRunComparePage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const a = c.req.query('a') ?? '';
  const b = c.req.query('b') ?? '';
  const project = c.get('project');
  const [runA, runB] = a.length > 200 || b.length > 200 ? [null, null] : await Promise.all([readTestRun(deps.store, project, a), readTestRun(deps.store, project, b)]);
  if (!runA || !runB) return problemPage(c, 404, 'No such test run', 'choose two runs of this project on the test runs page');
  const rows = compareTestRuns(runA, runB);
  const side = (s: { scored: number; passed: number | null; mean: number | null }): string => (s.passed !== null ? `${pct(s.scored === 0 ? null : s.passed / s.scored)} of ${s.scored}` : `mean ${num(s.mean)} of ${s.scored}`);
  const body = h`<p class="muted"><a href="/test-runs">Test runs</a> › compare</p><h1>${runA.name} against ${runB.name}</h1>
<p class="sub">B − A with its 95% interval (Newcombe for pass rates, normal for means); Fisher's exact or the z-test for pass rates, Mann-Whitney for scores; on the same scenario set, the data points where each run did better (sign test). <a href="/api/v1/test-runs/compare?a=${encodeURIComponent(runA.id)}&b=${encodeURIComponent(runB.id)}">As JSON</a>.</p>
${rows.length === 0 ? h`<p class="muted">The two runs share no check.</p>` : h`<div class="table-wrap"><table data-compare><thead><tr><th>check</th><th>A</th><th>B</th><th class="num">B − A</th><th>interval</th><th>test</th><th class="num">p</th><th>paired (A better / B better / ties)</th></tr></thead><tbody>${rows.map((r) => h`<tr data-check="${r.check}"><td>${r.check}</td><td>${side(r.a)}</td><td>${side(r.b)}</td><td class="num">${num(r.difference.value)}</td><td>[${num(r.difference.lower)}, ${num(r.difference.upper)}]</td><td>${r.test.method}</td><td class="num">${num(r.test.p_value)}</td><td>${r.paired ? `${r.paired.a} / ${r.paired.b} / ${r.paired.ties} (p ${num(r.paired.p_value)})` : 'different scenario sets'}</td></tr>`)}</tbody></table></div>`}`;
  return sendPage(c, layout(c, { title: 'Compare test runs', section: 'test-runs', body }));
}
