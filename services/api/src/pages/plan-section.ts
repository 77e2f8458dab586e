import type { Monitor, MonitorInput, ScoringPlan } from '../../../../shared/engines/monitors/index.ts';
import type { ScoringPlanView } from '../scoring-plan-routes.ts';
import { h, type Html } from './html.ts';

// The checks page's scoring plan: what runs on which units (the same view as GET
// /api/v1/scoring-plan), what it does to the agents seen lately, and the monitor form.

type PlannedMonitor = ScoringPlanView['monitors'][number];

/** Where a check runs under the plan: null when nowhere. */
export function runsWhere(plan: Pick<ScoringPlan, 'mode' | 'defaults' | 'monitors'>, name: string): string | null {
  if (plan.mode === 'defaults') {
    const kinds = [plan.defaults.trace.includes(name) ? 'trace' : null, plan.defaults.session.includes(name) ? 'session' : null].filter((k) => k !== null);
    return kinds.length === 0 ? null : `every ${kinds.join(' and ')} unit`;
  }
  const monitors = plan.monitors.filter((m) => m.enabled && m.checks.includes(name)).map((m) => m.name);
  return monitors.length === 0 ? null : `monitor ${monitors.join(', ')}`;
}

const filtersText = (m: Monitor): string => {
  const { attributes, ...fields } = m.filters;
  const parts = [...Object.entries(fields).map(([k, v]) => `${k}=${v}`), ...Object.entries(attributes ?? {}).map(([a, b]) => `${a}=${b}`)];
  return parts.length === 0 ? 'every unit' : parts.join(', ');
};
const budgetText = (m: Monitor): string =>
  m.budget ? [m.budget.calls_per_minute !== undefined ? `${m.budget.calls_per_minute} judge calls/min` : null, m.budget.usd_per_day !== undefined ? `$${m.budget.usd_per_day}/day` : null].filter(Boolean).join(', ') : '–';

/** What a PUT takes: the monitor without its project, timestamps and where the plan read it from. */
function inputOf(m: PlannedMonitor): MonitorInput {
  const { project: _p, created_at_ms: _c, updated_at_ms: _u, source: _s, ...input } = m;
  return input;
}

function monitorRow(m: PlannedMonitor, manage: boolean): Html {
  const input = inputOf(m);
  const url = `/api/v1/monitors/${encodeURIComponent(m.name)}`;
  const actions =
    manage && m.source === 'api'
      ? h`<button type="button" data-edit-monitor="${JSON.stringify(input)}" data-url="${url}">Edit</button> <button type="button" data-delete-monitor="${url}">Delete</button>`
      : m.source === 'file'
        ? h`<span class="muted">TRACECHECK_MONITORS_FILE</span>`
        : null;
  return h`<tr data-monitor-row="${m.name}"><td><strong>${m.name}</strong></td><td>${m.enabled ? h`<span class="badge ok">on</span>` : h`<span class="badge disabled">off</span>`}</td><td>${m.checks.join(', ')}</td><td>${filtersText(m)}</td><td class="num">${Math.round(m.sample_rate * 1000) / 10}%</td><td>${budgetText(m)}</td><td>${actions}</td></tr>`;
}

function agentsTable(plan: ScoringPlanView): Html {
  if (plan.agents.length === 0) return h`<p class="muted">No unit in the last 7 days.</p>`;
  return h`<div class="table-wrap"><table data-plan-agents><thead><tr><th>agent</th><th>units</th><th class="num">last 7 days</th><th>checks that run</th><th>scored?</th></tr></thead><tbody>
${plan.agents.map(
  (a) => h`<tr data-plan-agent="${a.agent ?? ''}" data-kind="${a.unit_kind}"><td>${a.agent ?? h`<span class="muted">(no agent name)</span>`}</td><td>${a.unit_kind}</td><td class="num">${a.units}</td><td>${a.checks.length === 0 ? h`<span class="muted">none</span>` : a.checks.join(', ')}</td>
<td>${a.with_checks === 0 ? h`<span class="badge fail">no check runs</span> <span class="muted">${a.reason ?? ''}</span>` : a.with_checks < a.looked_at ? h`<span class="badge pending">${a.with_checks} of ${a.looked_at} recent units</span> <span class="muted">${a.reason ?? ''}</span>` : h`<span class="badge ok">yes</span>`}</td></tr>`,
)}</tbody></table></div>`;
}

function planSummary(plan: ScoringPlanView): Html {
  if (plan.mode === 'defaults') {
    const list = (names: readonly string[]) => (names.length === 0 ? h`<strong>no check</strong>` : h`${names.join(', ')}`);
    return h`<p data-plan-mode="defaults">No monitor, so the defaults run: every trace unit gets ${list(plan.defaults.trace)} (<code>TRACECHECK_CHECKS</code>), every session unit ${list(plan.defaults.session)} (<code>TRACECHECK_SESSION_CHECKS</code>). The first monitor replaces them for the whole project.</p>`;
  }
  return h`<p data-plan-mode="monitors">Monitors decide: a unit gets the checks of the monitors whose filters match it and whose sample takes it, and <strong>nothing else</strong>. The defaults (<code>TRACECHECK_CHECKS</code>: ${plan.defaults.trace.join(', ') || 'none'}) do not run in this project while it has a monitor.</p>`;
}

const EXAMPLE = { name: 'my-monitor', checks: ['task_completed'], filters: { agent: 'my-agent' }, sample_rate: 1 };

/** The plan, the agents it leaves out, and (for admins) the monitor form that previews before it saves. */
export function planSection(plan: ScoringPlanView, manage: boolean, checkNames: readonly string[]): Html {
  const waiting = plan.units_waiting === null ? null : h`<p class="muted" data-units-waiting>${plan.units_waiting} units waiting for the scorer.</p>`;
  const monitors = plan.monitors.length === 0 ? null : h`<div class="table-wrap"><table data-monitors><thead><tr><th>monitor</th><th></th><th>checks</th><th>units</th><th class="num">sampled</th><th>budget</th><th></th></tr></thead><tbody>${plan.monitors.map((m) => monitorRow(m, manage))}</tbody></table></div>`;
  const form = manage
    ? h`<h3>New monitor</h3>
<form data-monitor-form data-method="POST" data-url="/api/v1/monitors" data-result-scope><p class="muted">JSON as <code>POST /api/v1/monitors</code> takes it: <code>name</code>, <code>checks</code>, <code>filters</code> (agent, agent_version, service, environment, unit_kind, attributes), <code>sample_rate</code>, <code>budget</code>, <code>enabled</code>. Saving first shows which agents of the last 7 days it would leave with no check.</p>
<textarea name="monitor" spellcheck="false">${JSON.stringify(EXAMPLE, null, 2)}</textarea><div data-result hidden></div><div data-preview hidden></div>
<button type="button" data-preview-monitor>Preview</button> <button type="submit">Save monitor</button></form>
<details><summary>Check names</summary><p class="muted">${checkNames.join(', ')}</p></details>
<script src="/assets/monitors.js" defer></script>`
    : null;
  return h`<h2 id="plan">Scoring plan</h2>
<div class="card" data-scoring-plan>${planSummary(plan)}${monitors}${waiting}<p class="muted">As JSON: <a href="/api/v1/scoring-plan">/api/v1/scoring-plan</a></p></div>
<h3>Agents seen in the last 7 days</h3>
${agentsTable(plan)}
${form}`;
}
