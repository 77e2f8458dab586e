import type { Context } from 'hono';
import type { CheckRegistry, RunnableCheck } from '../../../../shared/engines/checks/index.ts';
import type { ApiEnv } from '../route.ts';
import { isUsersOwn, methodOf } from './check-definition.ts';
import { checkHref } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, sendPage, type CheckCatalog, type PageDeps } from './page-deps.ts';

// The catalog and the users' own checks: kind, method, output and whether the scorer runs them.

function rows(list: readonly RunnableCheck[], catalog: CheckCatalog, registry: CheckRegistry): Html {
  return h`${list.map((check) => {
    const def = registry.definition(check.name)!;
    const live = catalog.live.includes(check.name);
    return h`<tr data-check-row="${check.name}"><td><a href="${checkHref(check.name)}"><strong>${check.name}</strong></a></td><td>${def.kind}</td><td>${methodOf(def)}</td><td>${def.outputType}</td>
<td data-live>${live ? h`<span class="badge ok">live</span>` : h`<span class="muted">no</span>`}</td><td><code>${check.version.slice(0, 8)}</code>${registry.history(check.name).length > 1 ? h` <span class="muted">(${registry.history(check.name).length} versions)</span>` : null}</td><td>${def.description}</td></tr>`;
  })}`;
}

const table = (body: Html): Html => h`<div class="table-wrap"><table data-checks><thead><tr><th>check</th><th>kind</th><th>method</th><th>output</th><th>runs live</th><th>version</th><th>what it checks</th></tr></thead><tbody>${body}</tbody></table></div>`;

export async function checksPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const catalog = deps.checks;
  const registry = await deps.registryFor(c.get('project'));
  let body: Html;
  if (!catalog || !registry) {
    body = h`<h1>Checks</h1><div class="card">This API was started without the check registry.</div>`;
  } else {
    const all = registry.list().sort((a, b) => Number(catalog.live.includes(b.name)) - Number(catalog.live.includes(a.name)) || a.name.localeCompare(b.name));
    const own = all.filter((ch) => isUsersOwn(registry, ch.name));
    const builtin = all.filter((ch) => !isUsersOwn(registry, ch.name));
    body = h`<h1>Checks</h1>
<p class="sub">${all.length} checks, ${catalog.live.length} run live on every unit (<code>TRACECHECK_CHECKS</code>). Add your own with <code>POST /api/v1/checks</code>, or <code>tracecheck checks upload</code> and <code>TRACECHECK_CHECK_DEFINITIONS</code>.</p>
<h2>Your checks</h2>
${own.length === 0 ? h`<p class="muted">None yet.</p>` : table(rows(own, catalog, registry))}
<h2>Catalog</h2>
${table(rows(builtin, catalog, registry))}`;
  }
  return sendPage(c, layout(c, { title: 'Checks', section: 'checks', body }));
}
