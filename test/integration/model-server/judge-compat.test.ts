import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries, type CheckInput, type RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { createOpenAiJudgeClient } from '../../../shared/engines/judge/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createHash } from 'node:crypto';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';

// Our real judge prompts (the check catalog) through the real judge client against the model
// server: the demo's three conversations must come out pass, fail, fail.
let server: ModelServer;
beforeAll(async () => {
  server = createModelServer({ port: 0, log: createSilentLogger() });
  await server.start();
});
afterAll(async () => {
  await server.shutdown();
});

function check(name: string): RunnableCheck {
  const entry = catalogEntries.find((e) => e.definition.name === name);
  if (!entry) throw new Error(`no catalog check ${name}`);
  return entry.build(entry.definition);
}

const call = (id: string, name: string, args: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] });
const tool = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

function input(messages: ChatMessage[]): CheckInput {
  const last = [...messages].reverse().find((m) => m.role === 'assistant' && m.content);
  const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
  return {
    id: 'u1',
    model_output: last?.content ?? null,
    scenario_input: messages.find((m) => m.role === 'user')?.content ?? null,
    scenario_result: last?.content ?? null,
    model_input: messages.slice(0, -1),
    message_history: messages,
    tool_calls: messages.flatMap((m) => (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: results.get(c.id) ?? null, error: null }))),
    tools: [],
    simulation_message_history: null,
    audio_messages: null,
    audio_output: null,
  };
}

const healthy = input([
  { role: 'user', content: 'What is the weather in Paris?' },
  call('c1', 'get_weather', '{"city":"Paris"}'),
  tool('c1', '{"city":"Paris","forecast":"sunny","temperature_c":22}'),
  { role: 'assistant', content: 'Here is what I found: city: Paris, forecast: sunny, temperature_c: 22.' },
]);
const toolFails = input([
  { role: 'user', content: 'Where is my order A-1001?' },
  call('c1', 'lookup_order', '{"order_id":"A-1001"}'),
  tool('c1', '{"error":"lookup_order failed: order service timeout while looking up A-1001"}'),
  { role: 'assistant', content: "I'm sorry, I couldn't complete that. Please try again later." },
]);
const loops = input([
  { role: 'user', content: 'Keep checking the weather in Oslo until it is sunny.' },
  ...[1, 2, 3, 4].flatMap((i) => [call(`c${i}`, 'get_weather', '{"city":"Oslo"}'), tool(`c${i}`, '{"city":"Oslo","forecast":"cloudy","temperature_c":3}')]),
]);

describe('catalog judge prompts against the model server', () => {
  it('task_completed: healthy passes, a failed tool and a loop fail', async () => {
    const judge = createOpenAiJudgeClient({ baseUrl: `${server.url()}/v1`, apiKey: 'x', model: 'mock-judge', timeoutMs: 10_000, maxRetries: 0 });
    const ctx = { judge, nowMs: () => 0 };
    const taskCompleted = check('task_completed');
    const outcomes = await Promise.all([healthy, toolFails, loops].map((i) => taskCompleted.run(i, ctx)));
    expect(outcomes.map((o) => (o.status === 'ok' ? [o.passed, o.value] : [o.status, o.error]))).toEqual([
      [true, 1],
      [false, 0],
      [false, 0],
    ]);
    expect(outcomes[2].explanation).toBe('The same step repeats 4 times: get_weather({"city":"Oslo"}).');
  });

  it('a 1-5 score check gets 5 for healthy and 1 for a loop', async () => {
    const judge = createOpenAiJudgeClient({ baseUrl: `${server.url()}/v1`, apiKey: 'x', model: 'mock-judge', timeoutMs: 10_000, maxRetries: 0 });
    const empathy = check('empathy_score');
    const [a, b] = await Promise.all([healthy, loops].map((i) => empathy.run(i, { judge, nowMs: () => 0 })));
    expect([a.status === 'ok' && a.value, b.status === 'ok' && b.value]).toEqual([5, 1]);
  });

  it('empathy_score sends the final agent turn\'s recording: the judge heard it; a text-only model is asked again without it', async () => {
    const wav = Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVEfmt ');
    const voice = input([
      { role: 'user', content: 'My flight was cancelled.' },
      { role: 'assistant', content: 'I am so sorry. Let me rebook you now.', audio: [{ format: 'wav', content: wav.toString('base64') }] },
    ]);
    voice.audio_output = voice.message_history[1].audio!;
    voice.audio_messages = [voice.message_history[1]];
    const empathy = check('empathy_score');
    const heard = await empathy.run(voice, { judge: createOpenAiJudgeClient({ baseUrl: `${server.url()}/v1`, apiKey: 'x', model: 'mock-judge', timeoutMs: 10_000, maxRetries: 0 }), nowMs: () => 0 });
    const sha = createHash('sha256').update(wav).digest('hex').slice(0, 12);
    expect(heard).toMatchObject({ status: 'ok', value: 5, explanation: `No tool errors and no repeated turns in the data; the task looks completed. Heard 1 recording: wav 16 bytes sha256 ${sha}.` });
    const textOnly = await empathy.run(voice, { judge: createOpenAiJudgeClient({ baseUrl: `${server.url()}/v1`, apiKey: 'x', model: 'mock-judge-text', timeoutMs: 10_000, maxRetries: 0 }), nowMs: () => 0 });
    expect(textOnly).toMatchObject({
      status: 'ok',
      value: 5,
      explanation: 'No tool errors and no repeated turns in the data; the task looks completed. [the audio was not heard: the judge model mock-judge-text refused audio input (400); judged on the text]',
    });
  });
});
