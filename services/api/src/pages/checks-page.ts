import type { Context } from 'hono';
import type { CheckRegistry, RunnableCheck } from '../../../../shared/engines/checks/index.ts';
import { canManage, type ApiEnv } from '../route.ts';
import { loadPlanView, type ScoringPlanView } from '../scoring-plan-routes.ts';
import { isUsersOwn, methodOf } from './check-definition.ts';
import { checkHref } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, sendPage, type PageDeps } from './page-deps.ts';
import { planSection, runsWhere } from './plan-section.ts';

// The catalog and the users' own checks: kind, method, output and where the scoring plan runs them.

function rows(list: readonly RunnableCheck[], plan: ScoringPlanView, registry: CheckRegistry): Html {
  return h`${list.map((check) => {
    const def = registry.definition(check.name)!;
    const where = runsWhere(plan, check.name);
    return h`<tr data-check-row="${check.name}"><td><a href="${checkHref(check.name)}"><strong>${check.name}</strong></a></td><td>${def.kind}</td><td>${methodOf(def)}</td><td>${def.outputType}</td>
<td data-live>${where ? h`<span class="badge ok">${where}</span>` : h`<span class="muted">no</span>`}</td><td><code>${check.version.slice(0, 8)}</code>${registry.history(check.name).length > 1 ? h` <span class="muted">(${registry.history(check.name).length} versions)</span>` : null}</td><td>${def.description}</td></tr>`;
  })}`;
}

const table = (body: Html): Html => h`<div class="table-wrap"><table data-checks><thead><tr><th>check</th><th>kind</th><th>method</th><th>output</th><th>runs on</th><th>version</th><th>what it checks</th></tr></thead><tbody>${body}</tbody></table></div>`;

export async function checksPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const catalog = deps.checks;
  const project = c.get('project');
  const registry = await deps.registryFor(project);
  let body: Html;
  if (!catalog || !registry || !deps.plans) {
    body = h`<h1>Checks</h1><div class="card">This API was started without the check registry.</div>`;
  } else {
    const plan = await loadPlanView(deps.store, deps.plans, project, deps.now());
    const inPlan = (name: string): number => Number(runsWhere(plan, name) !== null);
    const all = registry.list().sort((a, b) => inPlan(b.name) - inPlan(a.name) || a.name.localeCompare(b.name));
    const own = all.filter((ch) => isUsersOwn(registry, ch.name));
    const builtin = all.filter((ch) => !isUsersOwn(registry, ch.name));
    const running = all.filter((ch) => inPlan(ch.name) === 1).length;
    body = h`<h1>Checks</h1>
<p class="sub">${all.length} checks, ${running} in the scoring plan (${plan.mode === 'defaults' ? h`the defaults: no monitor` : h`${plan.monitors.length} monitors decide`}). Add your own with <code>POST /api/v1/checks</code>, or <code>tracecheck checks upload</code> and <code>TRACECHECK_CHECK_DEFINITIONS</code>.</p>
${planSection(plan, canManage(c), all.map((ch) => ch.name))}
<h2>Your checks</h2>
${own.length === 0 ? h`<p class="muted">None yet.</p>` : table(rows(own, plan, registry))}
<h2>Catalog</h2>
${table(rows(builtin, plan, registry))}`;
  }
  return sendPage(c, layout(c, { title: 'Checks', section: 'checks', body }));
}
