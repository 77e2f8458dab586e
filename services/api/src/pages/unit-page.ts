import { problemOfUnit } from '../problem-views.ts';
import { problemHref } from './problems-page.ts';
import type { Context } from 'hono';
import type { ChatMessage, Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import type { ApiEnv } from '../route.ts';
import { checkHref, num, unitCostText, unitHref, utc, withQuery } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';
import { agentGraph, timeline } from './unit-timeline.ts';
import { diagnoseUnit } from '../../../../shared/engines/diagnose/index.ts';
import { diagnosticsCard } from './diagnostics-card.ts';
import { noScoresNote } from './no-scores.ts';

// A unit as a conversation (system, user, assistant turns, tool calls with their arguments, tool
// results with errors marked, the final answer) beside every score of it. Every string here came
// from a trace, so it goes through `h` and shows as text.

const MAX_SCORES = 10_000;

/** Arguments as indented JSON when they are JSON, else as sent. */
function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

function toolCalls(m: ChatMessage): Html {
  return h`${(m.tool_calls ?? []).map((call) => h`<div class="call" data-tool-call><div class="name">→ ${call.function.name}(…) <span class="muted">${call.id}</span></div><pre>${prettyArguments(call.function.arguments)}</pre></div>`)}`;
}

function turn(m: ChatMessage, unit: Unit, isFinal: boolean): Html {
  if (m.role === 'tool') {
    const call = unit.tool_calls.find((t) => t.id === m.tool_call_id);
    const error = call?.error ?? null;
    return h`<div class="turn tool ${error ? 'failed' : ''}" data-turn="tool"><div class="role"><span>tool result${call ? ` · ${call.name}` : ''}</span>${error ? h`<span class="badge fail">error</span>` : null}</div>${error ? h`<div class="text"><strong>Error:</strong> ${error}</div>` : null}<pre>${m.content ?? ''}</pre></div>`;
  }
  const label = isFinal ? 'final answer' : m.role;
  return h`<div class="turn ${m.role} ${isFinal ? 'final' : ''}" data-turn="${m.role}"><div class="role"><span>${label}${m.name ? ` · ${m.name}` : ''}</span></div>${m.content ? h`<div class="text">${m.content}</div>` : null}${toolCalls(m)}</div>`;
}

export function transcript(unit: Unit): Html {
  const messages = unit.message_history.length > 0 ? unit.message_history : [...unit.model_input, ...(unit.model_output !== null ? [{ role: 'assistant' as const, content: unit.model_output }] : [])];
  if (messages.length === 0) return h`<p class="muted">This unit carries no messages.${diagnoseUnit(unit).length > 0 ? ' What is missing, and the setting that fixes it, is at the top of the page.' : ''}</p>`;
  let finalIndex = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.content && !(m.tool_calls?.length)) finalIndex = i;
  });
  return h`${messages.map((m, i) => turn(m, unit, i === finalIndex))}`;
}

function statusBadge(s: Score): Html {
  if (s.status !== 'ok') return h`<span class="badge ${s.status}">${s.status.replace('_', ' ')}</span>`;
  if (s.passed === null) return h`<span class="badge neutral">scored</span>`;
  return s.passed ? h`<span class="badge pass">pass</span>` : h`<span class="badge fail">fail</span>`;
}

export function scoreCard(s: Score): Html {
  return h`<div class="score" data-score="${s.check}"><div class="head"><a href="${checkHref(s.check)}"><strong>${s.check}</strong></a>${statusBadge(s)}</div>
<div class="muted">value ${num(s.value)} · ${s.method}${s.judge_model ? ` (${s.judge_model})` : ''} · version <code>${s.check_version.slice(0, 8)}</code></div>
${s.explanation ? h`<div class="expl" data-explanation>${s.explanation}</div>` : null}
${s.error ? h`<div class="expl"><strong>${s.status === 'not_run' ? 'Not run' : 'Error'}:</strong> ${s.error}</div>` : null}</div>`;
}

/** Back into the explorer: this unit's neighbours by agent, version and conversation. */
function explorerLinks(u: Unit): Html {
  const links: Html[] = [];
  if (u.agent_name !== null) links.push(h`<a href="${withQuery('/units', { agent: u.agent_name })}" data-explorer-link="agent">runs of ${u.agent_name}</a>`);
  if (u.agent_name !== null && u.agent_version !== null) links.push(h`<a href="${withQuery('/units', { agent: u.agent_name, agent_version: u.agent_version })}" data-explorer-link="version">of version ${u.agent_version}</a>`);
  if (u.conversation_id !== null) links.push(h`<a href="${withQuery('/units', { conversation_id: u.conversation_id })}" data-explorer-link="conversation">the conversation's units</a>`);
  return links.length === 0 ? h`` : h`<p class="muted" data-explorer-links>In the explorer: ${links.map((l, i) => h`${i > 0 ? ' · ' : ''}${l}`)}</p>`;
}

export async function unitPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const raw = c.req.param('id') ?? '';
  const id = /^[0-9A-F]{32}$/.test(raw) ? raw.toLowerCase() : raw;
  const project = c.get('project');
  // The latest revision and its own scores (a unit changed by late spans keeps earlier revisions: /revisions in the API).
  const shown = await deps.store.getUnitRevision(id, project);
  if (!shown) return problemPage(c, 404, 'No such unit', `No unit with id "${id}" in project ${project}.`);
  const unit = shown.unit;
  const scores = (await deps.store.queryScores({ unitId: id, project, unitRevision: shown.revision, limit: MAX_SCORES })).sort((a, b) => Number(a.passed ?? 2) - Number(b.passed ?? 2) || a.check.localeCompare(b.check));
  const meta: Array<[string, string | null]> = [
    ['agent', unit.agent_name],
    ['version', unit.agent_version],
    ['service', unit.service],
    ['environment', unit.environment],
    ['model', unit.model],
    ['conversation', unit.conversation_id],
    ['started', utc(unit.start_time_ms)],
    ['duration', `${((unit.end_time_ms - unit.start_time_ms) / 1000).toFixed(2)} s`],
    ['spans', String(unit.span_count)],
    ['model calls', unit.llm_calls === undefined ? null : String(unit.llm_calls)],
    ['tool calls', unit.tool_call_count === undefined ? null : `${unit.tool_call_count}${unit.tool_errors ? ` (${unit.tool_errors} failed)` : ''}`],
    ['cost', unitCostText(unit)],
    ['prices', unit.price_table ?? null],
    ['revision', String(shown.revision)],
  ];
  const failed = scores.filter((s) => s.status === 'ok' && s.passed === false).length;
  const inProblem = await problemOfUnit(deps.store, project, unit, scores);
  const body = h`<p class="muted"><a href="/">Overview</a> › <a href="${unit.kind === 'session' ? '/sessions' : '/units'}" data-explorer-back>${unit.kind === 'session' ? 'Sessions' : 'Units'}</a> › unit</p>
<h1>${unit.kind === 'session' ? 'Session' : 'Trace'} <code>${unit.unit_id}</code></h1>
<p class="sub">${unit.agent_name ?? 'unknown agent'} ${unit.agent_version ?? ''} · ${scores.length} scores, ${failed} failing${unit.truncated ? h` · <span class="badge error">truncated</span>` : null}${inProblem ? h` · <a class="badge fail" data-problem-badge href="${problemHref(inProblem.id)}">problem: ${inProblem.title}</a>` : null}</p>
${diagnosticsCard(diagnoseUnit(unit))}
<div class="grid2"><div>
${unit.kind === 'session' ? h`<div class="card"><strong>Traces of this session, in order</strong><ol data-session-traces>${unit.trace_ids.map((t) => h`<li><a href="${unitHref(t)}"><code>${t}</code></a></li>`)}</ol></div>` : null}
${unit.errors.length > 0 ? h`<div class="card firing-list"><strong>Errors in the trace</strong><ul>${unit.errors.map((e) => h`<li>${e.type ? h`<code>${e.type}</code> ` : null}${e.message}</li>`)}</ul></div>` : null}
${unit.steps && unit.steps.length > 0 ? h`<h2>Timeline</h2><div class="card">${timeline(unit)}</div><h2>Agents</h2><div class="card">${agentGraph(unit)}</div>` : null}
<h2>Conversation</h2>
<div data-transcript>${transcript(unit)}</div>
</div><aside class="sticky">
<div class="card"><dl class="kv">${meta.map(([k, v]) => h`<dt>${k}</dt><dd>${v ?? '–'}</dd>`)}</dl></div>
<div class="card" data-scores><strong>Scores</strong>${scores.length === 0 ? await noScoresNote(deps.plans, await deps.registryFor(project), unit, project) : scores.map(scoreCard)}</div>
</aside></div>
${explorerLinks(unit)}
<p class="muted">As JSON: <a href="/api/v1/units/${encodeURIComponent(unit.unit_id)}">/api/v1/units/${unit.unit_id}</a></p>`;
  return sendPage(c, layout(c, { title: `Unit ${unit.unit_id}`, section: 'unit', body }));
}
