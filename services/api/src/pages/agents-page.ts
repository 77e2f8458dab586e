import type { Context } from 'hono';
import type { MetricGroup } from '../../../../shared/adapters/store/index.ts';
import { queryMetricSummary, type MetricFilters, type MetricGroupSummary } from '../metric-queries.ts';
import type { ApiEnv } from '../route.ts';
import { num, pct, usd, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { operationsCard } from './operations-card.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';

// Agents: every agent's volume, error rate, latency and cost over the last 24 h; one
// agent's page adds its series per day, its versions, and its most expensive and slowest models.
// The same answers as GET /api/v1/metrics/summary; every name came from a trace, so it goes through `h`.

const agentHref = (name: string, version?: string): string => withQuery(`/agents/${encodeURIComponent(name)}`, { version });
const seconds = (ms: number | null): string => (ms === null ? '–' : `${(ms / 1000).toFixed(2)} s`);

function table(kind: MetricGroup, groups: readonly MetricGroupSummary[], link: (g: string) => string | null, sort: 'units' | 'cost' | 'p95' = 'units'): Html {
  if (groups.length === 0) return h`<p class="muted">No units in the last 24 h.</p>`;
  const sorted = [...groups].sort((a, b) => (sort === 'cost' ? (b.cost_usd.sum ?? 0) - (a.cost_usd.sum ?? 0) : sort === 'p95' ? (b.duration_ms.p95 ?? 0) - (a.duration_ms.p95 ?? 0) : b.units - a.units));
  return h`<div class="table-wrap"><table data-metrics="${kind}"><thead><tr><th>${kind.replace('_', ' ')}</th><th class="num">runs</th><th class="num">error rate</th><th class="num">p50</th><th class="num">p95</th><th class="num">p99</th><th class="num">cost</th><th class="num">cost / run</th><th class="num">tokens</th><th class="num">tool errors</th></tr></thead><tbody>${sorted.map((g) => {
    const href = g.group === null ? null : link(g.group);
    return h`<tr data-group="${g.group ?? ''}"><td>${href ? h`<a href="${href}">${g.group}</a>` : (g.group ?? h`<span class="muted">none</span>`)}</td><td class="num" data-units>${num(g.units)}</td><td class="num" data-error-rate>${pct(g.error_rate)}</td><td class="num">${seconds(g.duration_ms.p50)}</td><td class="num" data-p95>${seconds(g.duration_ms.p95)}</td><td class="num">${seconds(g.duration_ms.p99)}</td><td class="num" data-cost>${usd(g.cost_usd.sum)}</td><td class="num">${usd(g.cost_usd.mean)}</td><td class="num">${num(g.tokens.sum)}</td><td class="num">${num(g.tool_errors.sum)}</td></tr>`;
  })}</tbody></table></div>`;
}

export async function agentsPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const project = c.get('project');
  const nowMs = deps.now();
  const summary = await queryMetricSummary(deps.store, nowMs, { project, groupBy: 'agent', limit: 200, filters: {} });
  if (!summary.ok) return problemPage(c, 400, 'Invalid request', summary.error);
  const body = h`<h1>Agents</h1><p class="sub">The last 24 h by the run's end time; percentiles of run duration; cost by the price table (<a href="/api/v1/metrics/summary?group_by=agent">as JSON</a>).</p>
${table('agent', summary.value.groups, (g) => agentHref(g))}`;
  return sendPage(c, layout(c, { title: 'Agents', section: 'agents', body }));
}

export async function agentPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const project = c.get('project');
  const nowMs = deps.now();
  const agent = c.req.param('name') ?? '';
  const version = c.req.query('version');
  if (agent.length > 200 || (version !== undefined && version.length > 200)) return problemPage(c, 400, 'Invalid request', 'agent and version are at most 200 characters');
  const filters: MetricFilters = { agent, ...(version !== undefined ? { agentVersion: version } : {}) };
  const ask = (groupBy: MetricGroup) => queryMetricSummary(deps.store, nowMs, { project, groupBy, limit: 100, filters });
  const [ops, versions, models] = await Promise.all([operationsCard(deps.store, project, nowMs, filters), ask('agent_version'), ask('model')]);
  if (!versions.ok || !models.ok) return problemPage(c, 400, 'Invalid request', 'bad window');
  const json = withQuery('/api/v1/metrics/summary', { group_by: 'model', agent, agent_version: version });
  const body = h`<p class="muted"><a href="/agents">Agents</a> › agent</p>
<h1 data-agent>${agent}${version !== undefined ? h` <span class="muted">${version}</span>` : null}</h1>
${ops}
<h2>Versions</h2>${table('agent_version', versions.value.groups, (v) => agentHref(agent, v))}
<h2>Most expensive models</h2>${table('model', models.value.groups, () => null, 'cost')}
<h2>Slowest models</h2><p class="muted">By the p95 duration of the runs whose last call used the model.</p>${table('model', models.value.groups, () => null, 'p95')}
<p class="muted">As JSON: <a href="${json}">/api/v1/metrics/summary</a>. Tools and per-step figures of a run are on its unit page's timeline.</p>`;
  return sendPage(c, layout(c, { title: `Agent ${agent}`, section: 'agents', body }));
}
