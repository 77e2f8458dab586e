import type { ChatMessage } from '../../contracts/schemas/index.ts';
import { toolCallsFromMessages } from './check-input.ts';
import type { CheckContext, CheckInput, CheckOutcome, JudgeClient, JudgeRequest } from './contract.ts';

/** A CheckInput built from messages, for tests. */
export function inputFrom(messages: ChatMessage[], overrides: Partial<CheckInput> = {}): CheckInput {
  const lastText = [...messages].reverse().find((m) => m.role === 'assistant' && m.content);
  return {
    id: 'test-unit',
    model_output: lastText?.content ?? null,
    scenario_input: null,
    scenario_result: null,
    model_input: messages.slice(0, -1),
    message_history: messages,
    tool_calls: toolCallsFromMessages(messages),
    tools: [],
    simulation_message_history: null,
    audio_messages: null,
    audio_output: null,
    ...overrides,
  };
}

export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
export const call = (id: string, name: string, args: unknown = {}): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
export const result = (id: string, name: string, content: string | null): ChatMessage => ({ role: 'tool', tool_call_id: id, name, content });

/** A judge double that answers with a fixed text and records the requests. */
export function scriptedJudge(answer: string | ((req: JudgeRequest) => string)): JudgeClient & { requests: JudgeRequest[] } {
  const requests: JudgeRequest[] = [];
  return {
    requests,
    complete(req) {
      requests.push(req);
      const text = typeof answer === 'function' ? answer(req) : answer;
      return Promise.resolve({ text, model: 'test-judge', inputTokens: 10, outputTokens: 5 });
    },
  };
}

export function ctxWith(overrides: Partial<CheckContext> = {}): CheckContext {
  return { judge: null, judgeUnavailableReason: 'no judge in this test', nowMs: () => 0, ...overrides };
}

/** Narrows an outcome to `ok` (a test fails loudly on anything else). */
export function ok(o: CheckOutcome): Extract<CheckOutcome, { status: 'ok' }> {
  if (o.status !== 'ok') throw new Error(`expected an ok outcome, got ${JSON.stringify(o)}`);
  return o;
}

const OPENER = /[\p{Ps}<‹«]/u;
const CLOSER = /[\p{Pe}>›»]/u;

/**
 * The text as a reader that is generous with look-alikes sees it: NFKC, invisible characters
 * dropped, one-character double brackets doubled, every opener `[` and every closer `]`.
 */
export function asSeen(text: string): string {
  return [...text.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '')]
    .map((ch) => (/[⟦〚⸨⦅]/u.test(ch) ? '[[' : /[⟧〛⸩⦆]/u.test(ch) ? ']]' : OPENER.test(ch) ? '[' : CLOSER.test(ch) ? ']' : ch))
    .join('');
}

/** A value with every space taken out of its strings (the judge-data encoder may insert spaces between brackets). */
export const withoutSpaces = (v: unknown): unknown =>
  typeof v === 'string' ? v.replaceAll(' ', '') : Array.isArray(v) ? v.map(withoutSpaces) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutSpaces(x)])) : v;
