import type { FailureUnit } from './signature.ts';

/** A run of successful tool calls repeating one cycle (`search`, or `search > open`) at least `MIN_LOOP_REPEATS` times. */
export interface LoopShape {
  cycle: string[];
  repeats: number;
  /** Index of the loop's first call among the unit's steps (among its tool calls when it has no steps), and the agent that made it. */
  start: number;
  agent: string | null;
}

const MIN_LOOP_REPEATS = 3;
const MAX_CYCLE = 3;

interface Call {
  key: string;
  name: string;
  agent: string | null;
  /** Its position in the unit's steps, or in its tool calls when it has no steps. */
  index: number;
}

function callsOf(unit: FailureUnit): Call[] {
  const steps = unit.steps ?? [];
  const tools: Call[] = [];
  steps.forEach((s, index) => {
    if (s.type !== 'tool') return;
    const call = unit.tool_calls.find((c) => c.id === s.call_id);
    tools.push({ key: `${s.name}\u0000${call?.arguments ?? ''}`, name: s.name, agent: s.agent, index });
  });
  if (tools.length > 0) return tools;
  return unit.tool_calls.map((c, index) => ({ key: `${c.name}\u0000${c.arguments}`, name: c.name, agent: unit.agent_name, index }));
}

/**
 * The longest repetition of a cycle of 1–3 identical calls (same tool, same arguments), when it
 * repeats at least MIN_LOOP_REPEATS times in a row; shorter cycles win ties.
 */
export function loopShapeOf(unit: FailureUnit): LoopShape | null {
  const calls = callsOf(unit);
  let found: LoopShape | null = null;
  for (let len = 1; len <= MAX_CYCLE; len++) {
    for (let start = 0; start + len * MIN_LOOP_REPEATS <= calls.length; start++) {
      let repeats = 1;
      while (start + (repeats + 1) * len <= calls.length && sameCycle(calls, start, start + repeats * len, len)) repeats++;
      if (repeats >= MIN_LOOP_REPEATS && (!found || repeats * len > found.repeats * found.cycle.length)) {
        found = { cycle: calls.slice(start, start + len).map((c) => c.name), repeats, start: calls[start].index, agent: calls[start].agent };
      }
    }
  }
  return found;
}

function sameCycle(calls: readonly Call[], a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (calls[a + i].key !== calls[b + i].key) return false;
  return true;
}

/**
 * The first hand-off whose agent never gave control back: A hands off to B and B never hands back
 * to A. Hand-offs nest like calls: B → A after A → B is the return, not a new delegation.
 */
export function unreturnedHandoffOf(unit: FailureUnit): { from: string; to: string; step: number } | null {
  const open: Array<{ from: string; to: string; step: number }> = [];
  (unit.steps ?? []).forEach((s, i) => {
    if (s.type !== 'handoff' || s.agent === null) return;
    const back = open.findLastIndex((d) => d.to === s.from && d.from === s.agent);
    if (back >= 0) open.splice(back);
    else open.push({ from: s.from, to: s.agent, step: i });
  });
  return open[0] ?? null;
}
