// The problem miner on human-labelled failures (issue 37): bench/data/problem-labels (written by
// bench/data/make-problem-labels.ts from ../shared/eval-data).
//  - AgentRx tau-bench retail, the 29 failed runs: the book's problems against the human failure
//    category of each run (its first annotated failure): adjusted Rand index, and per category the
//    problem holding most of its runs with that problem's purity and the category's coverage.
//  - Who&When (AG2 group chats, 126 failed runs): how often the signature's failure point names the
//    human-attributed failing agent, and its step (message position).
// Scores given to the miner: the deterministic checks of the catalogue run on each conversation (no
// judge), and task_completed failed with one fixed explanation (the environment's or the benchmark's
// verdict: every run here failed). Each set is also mined in reverse order: the grouping must not change.
// `npm run bench:problems-real`; results appended to bench/results/problems.md.
import { appendFileSync, readFileSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { createCheckRegistry, runCheck, unitToCheckInput } from '../shared/engines/checks/index.ts';
import { createProblemBook, signatureOf, type FailureScore } from '../shared/engines/problems/index.ts';
import type { Unit } from '../shared/contracts/schemas/index.ts';
import { adjustedRandIndex, labelFits } from './problems/agreement.ts';
import { labelledUnit, type LabelledUnit, type LabelMessage } from './problems/labelled-runs.ts';

const dir = join(import.meta.dirname, 'data', 'problem-labels');
const read = <T>(file: string): T[] =>
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

const registry = createCheckRegistry();
const ctx = { judge: null, judgeUnavailableReason: 'bench: deterministic only', nowMs: () => 0, batch: [] };

async function scoresOf(u: LabelledUnit, messages: readonly LabelMessage[], verdict: string): Promise<FailureScore[]> {
  const unit = { ...u.unit, model_output: [...messages].reverse().find((m) => m.role === 'assistant' && m.content)?.content ?? null, message_history: messages, model_input: messages, tools: [], scenario_input: null, scenario_result: null, simulation_message_history: null } as unknown as Unit;
  const input = unitToCheckInput(unit);
  const out: FailureScore[] = [{ check: 'task_completed', status: 'ok', passed: false, explanation: verdict, error: null }];
  for (const check of registry.list()) {
    if (check.name === 'task_completed') continue;
    const o = await runCheck(check, input, ctx);
    if (o.status === 'ok') out.push({ check: check.name, status: 'ok', passed: o.passed ?? null, explanation: o.explanation, error: null });
    else if (o.status === 'error') out.push({ check: check.name, status: 'error', passed: null, explanation: '', error: o.error });
  }
  return out;
}

/** Problem id per unit, mining the units in the given order. */
function mine(items: ReadonlyArray<{ u: LabelledUnit; scores: FailureScore[] }>): Map<string, string | null> {
  const book = createProblemBook();
  const out = new Map<string, string | null>();
  for (const { u, scores } of items) out.set(u.unit.unit_id, book.observe({ unit_id: u.unit.unit_id, agent_name: u.unit.agent_name, agent_version: null, end_time_ms: 0 }, scores, u.unit).problemId);
  return out;
}

/** Same partition (problem ids may be named alike; compare who is with whom). */
function samePartition(a: ReadonlyMap<string, string | null>, b: ReadonlyMap<string, string | null>): boolean {
  const ids = [...a.keys()];
  return ids.every((x) => ids.every((y) => (a.get(x) === a.get(y)) === (b.get(x) === b.get(y))));
}

const lines: string[] = [];
const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;

// AgentRx retail.
interface RetailRun {
  id: string;
  messages: LabelMessage[];
  human_failures: Array<{ msg_pos: number; category: string }>;
}
const retail = read<RetailRun>('agentrx-retail-failed.jsonl');
const retailItems = await Promise.all(
  retail.map(async (r) => {
    const u = labelledUnit(r.id, r.messages, null);
    return { u, scores: await scoresOf(u, r.messages, 'The final database state does not match the gold actions (reward 0).'), r };
  }),
);
const retailAssigned = mine(retailItems);
const retailReplay = mine([...retailItems].reverse());
const firstCategory = (r: RetailRun): string => [...r.human_failures].sort((a, b) => a.msg_pos - b.msg_pos)[0]?.category ?? '(none)';
const retailLabels = new Map(retailItems.map(({ r }) => [r.id, firstCategory(r)]));
const titles = new Map<string, string>();
{
  const book = createProblemBook();
  for (const { u, scores } of retailItems) book.observe({ unit_id: u.unit.unit_id, agent_name: u.unit.agent_name, agent_version: null, end_time_ms: 0 }, scores, u.unit);
  for (const p of book.list()) titles.set(p.id, p.title);
}
const ari = adjustedRandIndex(retailAssigned, retailLabels);
lines.push(
  `### AgentRx tau-bench retail: ${retail.length} failed runs, ${new Set(retailAssigned.values()).size} problems, ${new Set(retailLabels.values()).size} human categories (first annotated failure of each run)`,
  '',
  `Adjusted Rand index ${ari.toFixed(3)}; same grouping mined in reverse order: ${samePartition(retailAssigned, retailReplay) ? 'yes' : 'NO'}.`,
  '',
  '| human category | runs | problem with most of them | its runs | purity | coverage |',
  '|---|---:|---|---:|---:|---:|',
  ...labelFits(retailAssigned, retailLabels).map((f) => `| ${f.label} | ${f.units} | \`${f.problem ? (titles.get(f.problem) ?? f.problem) : '–'}\` | ${f.problemUnits} | ${pct(f.purity)} | ${pct(f.coverage)} |`),
  '',
);

// Who&When.
interface WhoRun {
  id: string;
  messages: LabelMessage[];
  mistake_agent: string;
  mistake_step: number;
}
const who = read<WhoRun>('who-and-when.jsonl');
let agentHits = 0;
let stepHits = 0;
let nearHits = 0;
let callerHits = 0;
let pointed = 0;
let firstAgentHits = 0;
const causes = new Map<string, number>();
const whoItems = await Promise.all(
  who.map(async (r) => {
    const u = labelledUnit(r.id, r.messages, 'Computer_terminal');
    const scores = await scoresOf(u, r.messages, 'The final answer does not match the benchmark answer.');
    const sig = signatureOf(u.unit, scores);
    causes.set(sig.cause, (causes.get(sig.cause) ?? 0) + 1);
    const firstAgent = r.messages.find((m) => m.role === 'assistant')?.name;
    if (firstAgent === r.mistake_agent) firstAgentHits++;
    if (sig.point) {
      pointed++;
      const message = sig.cause === 'loop' && u.unit.steps!.length === 0 ? u.messageOfCall[sig.point.step] : u.messageOfStep[sig.point.step];
      if (sig.point.agent === r.mistake_agent) agentHits++;
      if (message === r.mistake_step) stepHits++;
      if (message !== undefined && Math.abs(message - r.mistake_step) <= 1) nearHits++;
      const caller = sig.cause === 'loop' && u.unit.steps!.length === 0 ? message : u.callerOfStep[sig.point.step];
      if (caller === r.mistake_step) callerHits++;
    }
    return { u, scores };
  }),
);
const whoAssigned = mine(whoItems);
const whoReplay = mine([...whoItems].reverse());
lines.push(
  `### Who&When (Algorithm-Generated): ${who.length} failed runs, ${new Set(whoAssigned.values()).size} problems (causes: ${[...causes].map(([c, n]) => `${c} ${n}`).join(', ')})`,
  '',
  `The signature names a failure point in ${pointed} runs. Of all ${who.length}: the labelled failing agent ${agentHits} (${pct(agentHits / who.length)}), the labelled step ${stepHits} (${pct(stepHits / who.length)}) at the failing step's own message, ${callerHits} (${pct(callerHits / who.length)}) taking a failing tool call's step as the agent turn that made the call; within one message ${nearHits} (${pct(nearHits / who.length)}). For scale, "the first agent to speak" names the failing agent in ${firstAgentHits} (${pct(firstAgentHits / who.length)}). Same grouping mined in reverse order: ${samePartition(whoAssigned, whoReplay) ? 'yes' : 'NO'}.`,
  '',
);

const text = [`## ${new Date().toISOString()} – real labels (bench:problems-real), ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), load average ${loadavg().map((l) => l.toFixed(1)).join(', ')}`, '', ...lines].join('\n');
appendFileSync(join(import.meta.dirname, 'results', 'problems.md'), `${text}\n`);
console.log(text);
