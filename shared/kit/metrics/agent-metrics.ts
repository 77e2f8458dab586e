import { Counter, Histogram, type Registry } from 'prom-client';
import type { Unit } from '../../contracts/schemas/index.ts';

// Per-agent request, latency and cost counters with bounded cardinality: agent and model
// names come from traces (hostile, unbounded), so each label takes at most a fixed number of
// distinct values, the first seen by this process; every later one is counted as `other`.

/** Distinct agents (and models) a process gives their own label value; the rest are `other`. */
export const MAX_AGENT_LABELS = 50;
const MAX_MODEL_LABELS = 50;
const MAX_LABEL_CHARS = 100;
const OTHER_LABEL = 'other';

/** A label's values: the first `max` seen keep their (cut) name, every other is `other`. */
export function createLabelCap(max: number): (value: string | null) => string {
  const seen = new Set<string>();
  return (value) => {
    const v = (value ?? 'unknown').slice(0, MAX_LABEL_CHARS);
    if (seen.has(v)) return v;
    if (seen.size >= max) return OTHER_LABEL;
    seen.add(v);
    return v;
  };
}

export interface AgentMetrics {
  /** Counts a published trace unit: its agent's runs, duration, model calls, cost and tool errors. */
  observeUnit(unit: Unit): void;
}

export function createAgentMetrics(registers: Registry[]): AgentMetrics {
  const agentLabel = createLabelCap(MAX_AGENT_LABELS);
  const modelLabel = createLabelCap(MAX_MODEL_LABELS);
  const units = new Counter({ name: 'tracecheck_agent_units_total', help: 'Agent runs (trace units) assembled, by agent and outcome (error: some span ended in error)', labelNames: ['agent', 'outcome'], registers });
  const duration = new Histogram({
    name: 'tracecheck_agent_unit_duration_seconds',
    help: 'Duration of agent runs, by agent',
    labelNames: ['agent'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const cost = new Counter({ name: 'tracecheck_agent_cost_usd_total', help: "USD of agents' model calls by the price table, by agent and model", labelNames: ['agent', 'model'], registers });
  const calls = new Counter({ name: 'tracecheck_agent_llm_calls_total', help: "Agents' model calls, by agent and model", labelNames: ['agent', 'model'], registers });
  const toolErrors = new Counter({ name: 'tracecheck_agent_tool_errors_total', help: "Agents' failed tool calls, by agent", labelNames: ['agent'], registers });
  return {
    observeUnit(unit) {
      if (unit.kind !== 'trace' || unit.llm_calls === undefined) return;
      const agent = agentLabel(unit.agent_name);
      const failed = unit.errors.some((e) => e.span_id !== undefined && !(e.type ?? '').startsWith('tracecheck.'));
      units.inc({ agent, outcome: failed ? 'error' : 'ok' });
      if (unit.duration_ms !== undefined) duration.observe({ agent }, unit.duration_ms / 1000);
      if (unit.tool_errors) toolErrors.inc({ agent }, unit.tool_errors);
      for (const [name, t] of Object.entries(unit.tokens_by_model ?? {})) {
        const model = modelLabel(name);
        calls.inc({ agent, model }, t.calls);
        if (t.cost_usd !== null && t.cost_usd > 0) cost.inc({ agent, model }, t.cost_usd);
      }
    },
  };
}
