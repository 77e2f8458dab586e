import { problemsOfRows } from '../problem-views.ts';
import { problemHref } from './problems-page.ts';
import type { Context } from 'hono';
import { z } from 'zod';
import { EXPLORE_SORTS, EXPLORE_VERDICTS, type ExploreRow, type ScoreBadge } from '../../../../shared/adapters/store/index.ts';
import { ExploreParams, crossChecks, nextExploreCursor, toExploreQuery } from '../explorer-query.ts';
import type { ApiEnv } from '../route.ts';
import { count, num, unitHref, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';
import { duration } from './pipeline-card.ts';
import { readPipeline } from '../pipeline-status.ts';

// The explorer: /units and /sessions list a project's runs newest first, filtered,
// searched and sorted, a page at a time. Every filter lives in the URL (a GET form) under the
// API's own names, so a page URL and a GET /api/v1/units URL say the same. Everything shown came
// from a trace, so it goes through `h`.

const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

const PageSchema = z.object({ ...ExploreParams, window: z.enum(['1h', '24h', '7d', '30d']).optional() }).strict().superRefine(crossChecks);
type PageQuery = z.output<typeof PageSchema>;

// The form sends every field; an empty one means "no filter".
const FIELDS = ['q', 'window', 'agent', 'agent_version', 'environment', 'service', 'model', 'tool', 'status', 'check', 'verdict', 'cost_min', 'cost_max', 'duration_min', 'duration_max', 'from', 'to', 'sort', 'order', 'conversation_id', 'unit_kind', 'kind', 'limit'] as const;

function given(raw: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== ''));
}

const seconds = (ms: number | null): string => (ms === null ? '–' : `${(ms / 1000).toFixed(2)} s`);
const dollars = (v: number | null): string => (v === null ? '–' : `$${v.toFixed(4)}`);
const tokens = (r: ExploreRow): string => (r.input_tokens === null ? '–' : num((r.input_tokens ?? 0) + (r.output_tokens ?? 0)));

function badge(s: ScoreBadge): Html {
  const cls = s.status !== 'ok' ? s.status : s.passed === null ? 'neutral' : s.passed ? 'pass' : 'fail';
  const verdict = s.status !== 'ok' ? s.status.replace('_', ' ') : s.passed === null ? (s.value === null ? 'scored' : num(s.value, 2)) : s.passed ? 'pass' : 'fail';
  return h`<span class="badge ${cls}" data-badge="${s.check}" title="${s.check} ${s.check_version}: ${verdict}">${s.check}</span> `;
}

function row(r: ExploreRow, problems: ReadonlyMap<string, { id: string; title: string }>): Html {
  const inProblem = problems.get(r.unit_id);
  const status = r.errored === null ? h`<span class="muted">–</span>` : r.errored ? h`<span class="badge fail">error</span>` : h`<span class="badge ok">ok</span>`;
  return h`<tr data-unit="${r.unit_id}"><td class="nowrap"><a href="${unitHref(r.unit_id)}">${utc(r.end_time_ms)}</a></td><td><a href="${unitHref(r.unit_id)}"><code>${r.unit_id.length > 16 ? `${r.unit_id.slice(0, 16)}…` : r.unit_id}</code></a></td><td>${r.agent_name ?? h`<span class="muted">none</span>`}${r.agent_version ? h` <span class="muted">${r.agent_version}</span>` : null}</td><td>${r.model ?? '–'}</td><td>${status}</td><td class="num" data-duration>${seconds(r.duration_ms)}</td><td class="num" data-cost>${dollars(r.cost_usd)}</td><td class="num" data-tokens>${tokens(r)}</td><td class="badges">${r.scores.length === 0 ? h`<span class="muted">not scored</span>` : r.scores.map(badge)}${inProblem ? h`<a class="badge fail" data-problem-badge href="${problemHref(inProblem.id)}" title="${inProblem.title}">problem</a>` : null}</td></tr>`;
}

function form(action: string, q: Record<string, string>): Html {
  const val = (name: string): string => q[name] ?? '';
  const text = (name: string, label: string, placeholder = 'any', type = 'text') => h`<label>${label}<input type="${type}" name="${name}" value="${val(name)}" placeholder="${placeholder}"></label>`;
  const select = (name: string, label: string, options: readonly (readonly [string, string])[]) =>
    h`<label>${label}<select name="${name}">${options.map(([v, l]) => h`<option value="${v}" ${val(name) === v ? h`selected` : null}>${l}</option>`)}</select></label>`;
  return h`<form class="filters explorer" method="get" action="${action}" role="search">
<label class="grow">search the dialog, tool arguments and results<input type="search" name="q" value="${val('q')}" placeholder="words that must all occur"></label>
${select('window', 'time', [['', 'any time'], ...Object.keys(WINDOWS).map((w) => [w, `last ${w}`] as const)])}
${text('agent', 'agent')}${text('agent_version', 'version')}${text('environment', 'environment')}${text('service', 'service')}${text('model', 'model')}${text('tool', 'tool')}
${select('status', 'status', [['', 'any'], ['ok', 'ok'], ['error', 'error']])}
${text('check', 'check', 'any')}${select('verdict', 'verdict', [['', 'any'], ...EXPLORE_VERDICTS.map((v) => [v, v.replace('_', ' ')] as const)])}
${text('cost_min', 'cost ≥ $', '0', 'number')}${text('cost_max', 'cost ≤ $', '∞', 'number')}${text('duration_min', 'duration ≥ ms', '0', 'number')}${text('duration_max', 'duration ≤ ms', '∞', 'number')}
${select('sort', 'sort by', EXPLORE_SORTS.map((s) => [s, s] as const))}${select('order', 'order', [['desc', 'highest / newest first'], ['asc', 'lowest / oldest first']])}
${q.conversation_id !== undefined ? h`<input type="hidden" name="conversation_id" value="${q.conversation_id}">` : null}
<button type="submit">Apply</button> <a class="button secondary" href="${action}">Clear</a></form>`;
}

/** Why a conversation just sent is not listed yet: its session unit is written once it goes idle. */
function openSessionsNote(open: { count: number; idle_ms: number }): Html {
  const n = open.count === 1 ? 'One conversation is' : `${count(open.count)} conversations are`;
  return h`<p class="sub" data-open-sessions>${n} open. A conversation becomes a session unit here ${duration(open.idle_ms)} after its last trace (<code>TRACECHECK_SESSION_IDLE_MS</code>), or at once when a trace carries <code>tracecheck.session.end</code>; its traces are already under <a href="/units">units</a>.</p>`;
}

async function explorerPage(c: Context<ApiEnv>, deps: PageDeps, kind: 'units' | 'sessions'): Promise<Response> {
  const path = `/${kind}`;
  const raw = given(c.req.query());
  const parsed = PageSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ');
    return problemPage(c, 400, 'Invalid filter', detail);
  }
  const v: PageQuery = parsed.data;
  const from = v.from ?? (v.window !== undefined ? deps.now() - WINDOWS[v.window] : undefined);
  const query = toExploreQuery({ ...v, ...(from !== undefined ? { from } : {}) }, c.get('project'), kind === 'sessions' ? 'session' : undefined);
  const [rows, pipeline] = await Promise.all([deps.store.exploreUnits(query), kind === 'sessions' ? readPipeline(deps.store, deps.now()) : null]);
  const problems = await problemsOfRows(deps.store, c.get('project'), rows);
  const next = nextExploreCursor(rows, { ...query, limit: v.limit });
  // The view's parameters without the cursor: every link keeps the filters.
  const keep: Record<string, string> = Object.fromEntries(FIELDS.filter((f) => raw[f] !== undefined).map((f) => [f, raw[f]]));
  const title = kind === 'sessions' ? 'Sessions' : 'Units';
  const api = withQuery(`/api/v1/${kind}`, { ...keep, window: undefined, ...(from !== undefined && v.from === undefined ? { from } : {}) });
  const sortLink = (s: (typeof EXPLORE_SORTS)[number], label: string): Html => {
    const active = v.sort === s;
    const order = active && v.order === 'desc' ? 'asc' : 'desc';
    return h`<a href="${withQuery(path, { ...keep, sort: s, order })}" class="${active ? 'active' : ''}" data-sort="${s}">${label}${active ? (v.order === 'desc' ? ' ↓' : ' ↑') : ''}</a>`;
  };
  const body = h`<h1>${title}</h1>
<p class="sub">${kind === 'sessions' ? "Every conversation's traces as one unit" : 'Every scored run, traces and sessions'}, newest first; filters stay in the URL (<a href="${api}" data-api-link>as JSON</a>).${kind === 'units' ? h` See also <a href="/sessions">sessions</a>.` : h` See also <a href="/units">all units</a>.`}</p>
${pipeline?.open_sessions ? openSessionsNote(pipeline.open_sessions) : null}
${form(path, keep)}
${rows.length === 0
    ? h`<p class="muted" data-empty>No ${kind} match these filters.</p>`
    : h`<div class="table-wrap"><table class="compact" data-explorer="${kind}"><thead><tr><th>${sortLink('time', 'ended')}</th><th>unit</th><th>agent</th><th>model</th><th>status</th><th class="num">${sortLink('duration', 'duration')}</th><th class="num">${sortLink('cost', 'cost')}</th><th class="num">${sortLink('tokens', 'tokens')}</th><th>scores</th></tr></thead><tbody>${rows.map((r) => row(r, problems))}</tbody></table></div>`}
<div class="pager">${v.cursor !== undefined ? h`<a href="${withQuery(path, keep)}" data-first-page>« first page</a>` : null}${next !== null ? h`<a href="${withQuery(path, { ...keep, cursor: next })}" data-next-page>next page »</a>` : null}</div>`;
  return sendPage(c, layout(c, { title, section: kind, body }));
}

export const unitsPage = (c: Context<ApiEnv>, deps: PageDeps): Promise<Response> => explorerPage(c, deps, 'units');
export const sessionsPage = (c: Context<ApiEnv>, deps: PageDeps): Promise<Response> => explorerPage(c, deps, 'sessions');
