// Writes bench/data/problem-labels/: the parts of the shared evaluation set that `bench:problems-real`
// reads, so that it runs in any clone. AgentRx retail: the failed runs (reward 0) with their human
// failure categories; Who&When: every run with its human-attributed failing agent and step.
// Messages keep role, name, tool calls and tool call ids; text is cut to MAX_CHARS (marked).
// Deterministic. `node bin/run-ts.mjs bench/data/make-problem-labels.ts [SOURCE_DIR]`
// (default ../shared/eval-data beside the clone).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const MAX_CHARS = 400;
const source = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'eval-data'));
const out = join(import.meta.dirname, 'problem-labels');
mkdirSync(out, { recursive: true });

interface Message {
  role: string;
  name?: string;
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}
interface Raw {
  id: string;
  messages: Message[];
  labels: { task_completed: boolean | null; _raw: Record<string, unknown> };
}

const cut = (s: string | null): string | null => (s === null || s.length <= MAX_CHARS ? s : `${s.slice(0, MAX_CHARS)}...[cut ${s.length - MAX_CHARS} chars]`);
const slim = (m: Message): Message => ({
  role: m.role,
  ...(m.name !== undefined ? { name: m.name } : {}),
  content: cut(m.content),
  ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
  ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
});
const read = (file: string): Raw[] =>
  readFileSync(join(source, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Raw);

const retail = read('agentrx-tau-retail.jsonl').filter((r) => r.labels.task_completed === false);
writeFileSync(
  join(out, 'agentrx-retail-failed.jsonl'),
  retail.map((r) => JSON.stringify({ id: r.id, messages: r.messages.map(slim), human_failures: ((r.labels._raw.human_failures ?? []) as Array<{ msg_pos: number; category: string; agent: string }>).map((f) => ({ msg_pos: f.msg_pos, category: f.category, agent: f.agent })) })).join('\n') + '\n',
);
const who = read('who-and-when.jsonl');
writeFileSync(
  join(out, 'who-and-when.jsonl'),
  who.map((r) => JSON.stringify({ id: r.id, messages: r.messages.map(slim), mistake_agent: r.labels._raw.human_mistake_agent, mistake_step: r.labels._raw.human_mistake_step_msg_pos })).join('\n') + '\n',
);
console.log(`agentrx-retail-failed.jsonl: ${retail.length} failed runs; who-and-when.jsonl: ${who.length} runs (text cut to ${MAX_CHARS} chars)`);
