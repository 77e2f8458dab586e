import type { Context } from 'hono';
import { z } from 'zod';
import { ruleCheck, targetAddress, type AlertRule, type AlertState } from '../../../../shared/engines/alerts/index.ts';
import { maskEvent, maskRule, type AlertEventView } from '../alert-views.ts';
import { canManage, type ApiEnv } from '../route.ts';
import { checkHref, num, pct, unitHref, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';

// Alert rules with their state, the history of notifications with each delivery's outcome, and
// forms to create, edit and disable rules (JSON sent to the API by /assets/app.js).

const AlertsQuery = z.object({
  before: z.string().regex(/^\d{1,16}$/).optional(),
  rule_id: z.string().max(200).optional(),
});

const HISTORY_PAGE = 25;

const NEW_RULE = {
  kind: 'threshold',
  name: 'loop_guard below 90%',
  check: 'loop_guard',
  window: '1h',
  threshold: 0.9,
  min_samples: 20,
  notify: [{ type: 'webhook', url: 'https://example.com/hook' }],
};

/** What a client sends back to replace a rule: the stored rule without its identity and timestamps. */
function ruleInput(rule: AlertRule): Record<string, unknown> {
  const { id: _id, project: _project, created_at_ms: _c, updated_at_ms: _u, ...input } = rule;
  return input;
}

function stateBadge(rule: AlertRule, state: AlertState | undefined): Html {
  if (!rule.enabled) return h`<span class="badge disabled">disabled</span>`;
  if (!state) return h`<span class="badge inactive">not evaluated yet</span>`;
  return h`<span class="badge ${state.state}">${state.state}</span>`;
}

function ruleForm(method: 'POST' | 'PUT', url: string, value: unknown, label: string): Html {
  return h`<form data-rule-form data-method="${method}" data-url="${url}" data-result-scope><textarea name="rule" spellcheck="false">${JSON.stringify(value, null, 2)}</textarea><div data-result hidden></div><button type="submit">${label}</button></form>`;
}

function ruleRow(rule: AlertRule, state: AlertState | undefined): Html {
  const url = `/api/v1/alert-rules/${encodeURIComponent(rule.id)}`;
  const input = ruleInput(rule);
  const value = state?.last_value ?? null;
  return h`<tr id="rule-${rule.id}" data-rule-row="${rule.name}">
<td><strong>${rule.name}</strong><div class="muted">${rule.kind}${ruleCheck(rule) ? h` · <a href="${checkHref(ruleCheck(rule)!)}">${ruleCheck(rule)}</a>` : null}</div></td>
<td data-state>${stateBadge(rule, state)}${state?.last_error ? h`<div class="muted">${state.last_error}</div>` : null}</td>
<td class="num">${value === null ? '–' : value <= 1 && rule.kind !== 'judge_health' && rule.kind !== 'metric_threshold' && rule.kind !== 'metric_regression' ? pct(value) : num(value)}</td>
<td class="muted">${state?.last_evaluated_at_ms ? utc(state.last_evaluated_at_ms) : '–'}</td>
<td>${rule.notify.length === 0 ? h`<span class="muted">history only</span>` : rule.notify.map((n) => h`<div>${n.type}: <code>${targetAddress(n)}</code></div>`)}</td>
<td data-result-scope><button type="button" class="secondary" data-put-rule="${JSON.stringify({ ...input, enabled: !rule.enabled })}" data-url="${url}">${rule.enabled ? 'Disable' : 'Enable'}</button>
<a href="${withQuery('/alerts', { rule_id: rule.id })}">history</a><div data-result hidden></div>
<details><summary>Edit</summary>${ruleForm('PUT', url, input, 'Save')}</details></td></tr>`;
}

function eventRow(e: AlertEventView): Html {
  return h`<tr data-event="${e.state}"><td class="muted">${utc(e.created_at_ms)}</td><td>${e.rule_name}</td><td><span class="badge ${e.state === 'resolved' ? 'ok' : 'firing'}">${e.state}</span></td>
<td>${e.payload.summary}${e.payload.units.length > 0 ? h`<div class="muted">units: ${e.payload.units.slice(0, 3).map((u) => h`<a href="${unitHref(u)}"><code>${u.slice(0, 12)}</code></a> `)}${e.payload.units.length > 3 ? `+${e.payload.units.length - 3}` : ''}</div>` : null}</td>
<td>${e.deliveries.length === 0 ? h`<span class="muted">${e.delivery_status === 'pending' ? 'pending' : 'no targets'}</span>` : e.deliveries.map((d) => h`<div><span class="badge ${d.outcome === 'delivered' ? 'ok' : 'fail'}">${d.outcome}</span> ${d.type}${d.attempts !== undefined ? ` · ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : ''}${d.status !== undefined ? ` · HTTP ${d.status}` : ''}${d.error ? h` · <span class="muted">${d.error}</span>` : null}</div>`)}</td></tr>`;
}

export async function alertsPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const parsed = AlertsQuery.safeParse(c.req.query());
  if (!parsed.success) return problemPage(c, 400, 'Invalid page', 'before must be the cursor of a previous page');
  const q = parsed.data;
  const project = c.get('project');
  const [stored, states, page] = await Promise.all([
    deps.alerts.listRules(project),
    deps.alerts.listStates(project),
    deps.alerts.listEvents({ project, limit: HISTORY_PAGE, ...(q.rule_id ? { ruleId: q.rule_id } : {}), ...(q.before ? { beforeMs: Number(q.before) } : {}) }),
  ]);
  // A read key sees targets masked and deliveries' outcome only, as through the API.
  const manage = canManage(c);
  const rules = manage ? stored : stored.map(maskRule);
  const events: AlertEventView[] = manage ? page.events : page.events.map(maskEvent);
  rules.sort((x, y) => Number(states.get(y.id)?.state === 'firing') - Number(states.get(x.id)?.state === 'firing') || x.name.localeCompare(y.name));
  const filtered = q.rule_id ? rules.find((r) => r.id === q.rule_id) : undefined;
  const body = h`<h1>Alerts</h1>
<p class="sub">Rules are evaluated by the alerter; a rule notifies once per state change (and at its reminder interval while firing).</p>
<h2>Rules</h2>
${rules.length === 0 ? h`<div class="card">No alert rules yet. Create one below, or from the <a href="/compare">Compare</a> page.</div>` : h`<div class="table-wrap"><table data-rules><thead><tr><th>rule</th><th>state</th><th class="num">last value</th><th>last evaluated</th><th>notifies</th><th></th></tr></thead><tbody>${rules.map((r) => ruleRow(r, states.get(r.id)))}</tbody></table></div>`}
<details class="card"><summary>New rule</summary><p class="muted">Kinds: <code>threshold</code>, <code>regression</code> (baseline and candidate filters), <code>judge_health</code>, <code>no_data</code>, <code>metric_threshold</code>, <code>metric_regression</code>. The API's schema is at <a href="/openapi.json">/openapi.json</a>.</p>${ruleForm('POST', '/api/v1/alert-rules', NEW_RULE, 'Create')}</details>
<h2>History${filtered ? ` of ${filtered.name}` : ''}</h2>
${events.length === 0 ? h`<p class="muted">No notifications${q.before ? ' before this point' : ' yet'}.</p>` : h`<div class="table-wrap"><table data-history><thead><tr><th>when</th><th>rule</th><th>state</th><th>summary</th><th>deliveries</th></tr></thead><tbody>${events.map(eventRow)}</tbody></table></div>`}
<div class="pager">${q.before || q.rule_id ? h`<a href="/alerts">All, newest first</a>` : null}${page.nextBeforeMs !== null ? h`<a href="${withQuery('/alerts', { rule_id: q.rule_id, before: page.nextBeforeMs })}">Older</a>` : null}</div>`;
  return sendPage(c, layout(c, { title: 'Alerts', section: 'alerts', body }));
}
