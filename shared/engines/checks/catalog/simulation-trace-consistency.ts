import type { ChatMessage } from '../../../contracts/schemas/index.ts';
import { builtinEntry } from '../builtin-check.ts';
import { SIMULATION_TRACE_CONSISTENCY_RUBRIC } from './judge-rubrics.ts';
import { clip } from '../lib/tool-results.ts';
import { normalizeText, textSimilarity } from '../lib/text.ts';
import { settled } from '../lib/judge-mode.ts';
import { notRun, passFail } from '../outcome.ts';

interface Turn {
  pos: number;
  role: string;
  text: string;
  raw: string;
}

/** Dialog turns both sides record: user and assistant text (tool traffic is the trace's own detail). */
function turnsOf(messages: readonly ChatMessage[]): Turn[] {
  return messages.flatMap((m, pos) => {
    const text = normalizeText(m.content);
    return (m.role === 'user' || m.role === 'assistant') && text !== '' ? [{ pos, role: m.role, text, raw: m.content ?? '' }] : [];
  });
}

/** Same role and at least this similar: the same turn, possibly altered. */
const ALIGN_SIMILARITY = 0.6;

function similarity(a: Turn, b: Turn): number {
  return a.role === b.role ? textSimilarity(a.text, b.text) : 0;
}

/** Longest alignment of the two turn sequences (an LCS where near-equal turns may pair). */
function align(sim: Turn[], trace: Turn[]): [number, number][] {
  const n = sim.length;
  const m = trace.length;
  const score: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  const sims: number[][] = Array.from({ length: n }, (_, i) => trace.map((t) => similarity(sim[i], t)));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const pair = sims[i][j] >= ALIGN_SIMILARITY ? 1 + sims[i][j] + score[i + 1][j + 1] : -1;
      score[i][j] = Math.max(pair, score[i + 1][j], score[i][j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (sims[i][j] >= ALIGN_SIMILARITY && score[i][j] === 1 + sims[i][j] + score[i + 1][j + 1]) pairs.push([i++, j++]);
    else if (score[i + 1][j] >= score[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/** Compares the dialog the trace captured with the simulation's own dialog. */
export const simulationTraceConsistency = builtinEntry(
  {
    kind: 'builtin',
    name: 'simulation_trace_consistency',
    description:
      'Aligns the user/assistant turns captured through OpenTelemetry (message_history) with the simulation\'s own dialog (simulation_message_history) and fails on missing, extra, reordered or altered turns, listing each. Needs a simulation dialog.',
    outputType: 'pass_fail',
    implementationVersion: '2',
  },
  ['message_history', 'simulation_message_history'],
  (input) => {
    if (!input.simulation_message_history) return notRun('deterministic', 'the unit carries no simulation dialog (simulation_message_history)');
    const sim = turnsOf(input.simulation_message_history);
    const trace = turnsOf(input.message_history);
    const pairs = align(sim, trace);
    const simPaired = new Set(pairs.map(([i]) => i));
    const tracePaired = new Set(pairs.map(([, j]) => j));
    let missing = sim.filter((_, i) => !simPaired.has(i));
    let extra = trace.filter((_, j) => !tracePaired.has(j));
    const reordered: string[] = [];
    for (const s of [...missing]) {
      const moved = extra.find((t) => t.role === s.role && t.text === s.text);
      if (moved) {
        reordered.push(`simulation turn ${s.pos} (${s.role}: "${clip(s.raw, 40)}") appears out of order at trace message ${moved.pos}`);
        missing = missing.filter((x) => x !== s);
        extra = extra.filter((x) => x !== moved);
      }
    }
    const altered = pairs
      .filter(([i, j]) => sim[i].text !== trace[j].text)
      .map(([i, j]) => `simulation turn ${sim[i].pos} ("${clip(sim[i].raw, 40)}") altered in trace message ${trace[j].pos} ("${clip(trace[j].raw, 40)}")`);
    const found = [
      ...missing.map((s) => `missing: simulation turn ${s.pos} (${s.role}: "${clip(s.raw, 40)}") is not in the trace`),
      ...extra.map((t) => `extra: trace message ${t.pos} (${t.role}: "${clip(t.raw, 40)}") is not in the simulation`),
      ...reordered.map((r) => `reordered: ${r}`),
      ...altered.map((a) => `altered: ${a}`),
    ];
    if (found.length === 0) return settled(passFail(true, 'deterministic', `all ${sim.length} simulation turns match the trace in order`));
    // A different number of turns is a missing or extra turn for certain; a turn in other words is the judge's to weigh.
    const out = passFail(false, 'deterministic', `${found.length} discrepancies: ${found.join('; ')}`);
    return sim.length !== trace.length ? settled(out) : out;
  },
  { judge: SIMULATION_TRACE_CONSISTENCY_RUBRIC },
);
