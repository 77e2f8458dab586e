import type { Unit, UnitStep } from '../../../../shared/contracts/schemas/index.ts';
import { PALETTE } from './charts.ts';
import { h, type Html } from './html.ts';

// The unit page's timeline (a waterfall of the steps, nested by agent) and its agent graph (agents,
// the models and tools each used, hand-offs, with counts). Server-rendered SVG like the other
// charts; every name came from a trace, so it goes through `h` and shows as text.

/** Steps drawn at most (a unit keeps up to 1,000; past this the table says how many more). */
const MAX_DRAWN = 300;
const ROW = 18;
const LABEL_W = 220;
const BAR_W = 520;

const STEP_MARK = { llm: '◆ ', tool: '▸ ', plan: '☰ ', memory: '▣ ' } as const;
const usd = (v: number | null): string => (v === null ? 'unpriced' : `$${v.toFixed(6)}`);
const msText = (v: number): string => `${v.toFixed(1)} ms`;

function stepName(s: UnitStep): string {
  if (s.type === 'llm') return s.model ?? 'unknown model';
  if (s.type === 'tool') return s.mcp ? `${s.name} (MCP ${s.mcp.method})` : s.name;
  if (s.type === 'plan') return `plan: ${s.name}`;
  if (s.type === 'memory') return `${s.operation}${s.store_id ? ` ${s.store_id}` : ''}${s.record_count !== null ? ` (${s.record_count} records)` : ''}`;
  return `${s.from} → ${s.agent ?? ''}`;
}

/** Agents in order of first appearance; steps without one under the unit's agent. */
function byAgent(unit: Unit, steps: readonly UnitStep[]): Array<[string, UnitStep[]]> {
  const groups = new Map<string, UnitStep[]>();
  for (const s of steps) {
    const agent = s.agent ?? unit.agent_name ?? 'unknown agent';
    groups.set(agent, [...(groups.get(agent) ?? []), s]);
  }
  return [...groups];
}

export function timeline(unit: Unit): Html {
  const steps = (unit.steps ?? []).filter((s) => s.type !== 'handoff').slice(0, MAX_DRAWN);
  if (steps.length === 0) return h`<p class="muted">No model calls, tool executions, plans or memory operations recorded for this unit.</p>`;
  const total = Math.max(unit.duration_ms ?? 0, ...steps.map((s) => s.start_ms + ('latency_ms' in s ? s.latency_ms : 0)), 1);
  const groups = byAgent(unit, steps);
  const rows: Html[] = [];
  let y = 0;
  groups.forEach(([agent, list], gi) => {
    rows.push(h`<text x="0" y="${y + 13}" class="agent" font-weight="bold">${agent}</text>`);
    y += ROW;
    for (const s of list) {
      if (s.type === 'handoff') continue;
      const x = LABEL_W + (s.start_ms / total) * BAR_W;
      const w = Math.max(1, (s.latency_ms / total) * BAR_W);
      const color = s.status === 'error' ? '#D55E00' : s.type === 'llm' ? PALETTE[gi % 3 === 0 ? 0 : gi % 3 === 1 ? 2 : 3] : '#E69F00';
      const title = s.type === 'llm' ? `${stepName(s)}: ${msText(s.latency_ms)}, ${s.input_tokens} in / ${s.output_tokens} out tokens, ${usd(s.cost_usd)}` : `${stepName(s)}: ${msText(s.latency_ms)}${s.error ? `, error: ${s.error}` : ''}`;
      rows.push(h`<text x="12" y="${y + 13}">${STEP_MARK[s.type]}${stepName(s).slice(0, 30)}</text><rect x="${x.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 6}" fill="${color}"><title>${title}</title></rect>`);
      y += ROW;
    }
  });
  const svg = h`<svg class="chart" role="img" aria-label="timeline of the steps" viewBox="0 0 ${LABEL_W + BAR_W + 10} ${y + 20}" width="100%" font-size="11">${rows}<text x="${LABEL_W}" y="${y + 14}" class="muted">0 ms</text><text x="${LABEL_W + BAR_W}" y="${y + 14}" text-anchor="end" class="muted">${msText(total)}</text></svg>`;
  const table = h`<table data-steps><thead><tr><th>agent</th><th>step</th><th>start</th><th>latency</th><th>tokens in/out</th><th>TTFT</th><th>cost</th><th>status</th></tr></thead><tbody>${(unit.steps ?? []).slice(0, MAX_DRAWN).map(
    (s) =>
      h`<tr data-step="${s.type}"><td>${s.agent ?? unit.agent_name ?? ''}</td><td data-step-name>${s.type === 'handoff' ? h`hand-off ${stepName(s)}` : stepName(s)}</td><td>${msText(s.start_ms)}</td><td data-latency>${s.type === 'handoff' ? '' : msText(s.latency_ms)}</td><td data-tokens>${s.type === 'llm' ? `${s.input_tokens} / ${s.output_tokens}` : ''}</td><td>${s.type === 'llm' && s.ttft_ms !== undefined ? msText(s.ttft_ms) : ''}</td><td data-cost>${s.type === 'llm' ? usd(s.cost_usd) : ''}</td><td>${s.type === 'handoff' ? '' : s.status === 'error' ? h`<span class="badge fail" title="${s.error ?? ''}">error</span>` : 'ok'}</td></tr>`,
  )}</tbody></table>`;
  const more = (unit.steps?.length ?? 0) - MAX_DRAWN + (unit.steps_dropped ?? 0);
  return h`<div data-timeline>${svg}${table}${more > 0 ? h`<p class="muted">${more} more steps not shown.</p>` : null}</div>`;
}

interface AgentNode {
  models: Map<string, number>;
  tools: Map<string, number>;
}

/** Agents with the models and tools each used and the hand-offs between them, with counts. */
export function agentGraph(unit: Unit): Html {
  const steps = unit.steps ?? [];
  if (steps.length === 0) return h``;
  const agents = new Map<string, AgentNode>();
  const handoffs = new Map<string, number>();
  const node = (name: string): AgentNode => {
    let n = agents.get(name);
    if (!n) agents.set(name, (n = { models: new Map(), tools: new Map() }));
    return n;
  };
  for (const s of steps) {
    const agent = s.agent ?? unit.agent_name ?? 'unknown agent';
    const n = node(agent);
    if (s.type === 'llm') n.models.set(stepName(s), (n.models.get(stepName(s)) ?? 0) + 1);
    else if (s.type === 'tool') n.tools.set(s.name, (n.tools.get(s.name) ?? 0) + 1);
    else if (s.type === 'plan' || s.type === 'memory') continue;
    else {
      node(s.from);
      const key = JSON.stringify([s.from, agent]);
      handoffs.set(key, (handoffs.get(key) ?? 0) + 1);
    }
  }
  const names = [...agents.keys()].slice(0, 12);
  const BOX_W = 180;
  const GAP = 60;
  const xOf = (i: number): number => 10 + i * (BOX_W + GAP);
  const boxes = names.map((name, i) => {
    const n = agents.get(name)!;
    const lines = [...[...n.models].map(([m, c]) => `◆ ${m.slice(0, 24)} ×${c}`), ...[...n.tools].map(([t, c]) => `▸ ${t.slice(0, 24)} ×${c}`)].slice(0, 12);
    const height = 26 + lines.length * 15;
    return h`<g data-agent-node><rect x="${xOf(i)}" y="30" width="${BOX_W}" height="${height}" rx="6" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2"/><text x="${xOf(i) + 8}" y="48" font-weight="bold">${name.slice(0, 26)}</text>${lines.map((l, j) => h`<text x="${xOf(i) + 8}" y="${66 + j * 15}">${l}</text>`)}</g>`;
  });
  const edges = [...handoffs].map(([key, c]) => {
    const [from, to] = JSON.parse(key) as [string, string];
    const a = names.indexOf(from);
    const b = names.indexOf(to);
    if (a < 0 || b < 0) return h``;
    const x1 = xOf(a) + BOX_W / 2;
    const x2 = xOf(b) + BOX_W / 2;
    return h`<g data-handoff><path d="M ${x1} 28 C ${x1} 4, ${x2} 4, ${x2} 28" fill="none" stroke="#999" marker-end="url(#arrow)"/><text x="${(x1 + x2) / 2}" y="12" text-anchor="middle">hand-off ×${c}</text></g>`;
  });
  // Drawn at its own size (shrunk to fit a narrow screen by the stylesheet), never stretched: one agent is one box.
  const tallest = Math.max(...names.map((n) => 26 + Math.min(12, agents.get(n)!.models.size + agents.get(n)!.tools.size) * 15));
  return h`<svg class="chart" role="img" aria-label="agent graph" data-agent-graph viewBox="0 0 ${xOf(names.length)} ${tallest + 40}" width="${xOf(names.length)}" height="${tallest + 40}" font-size="11"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#999"/></marker></defs>${edges}${boxes}</svg>`;
}
