import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';

let server: ModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = createModelServer({ host: '127.0.0.1', port: 0, log: createSilentLogger() });
  await server.start();
  client = new OpenAI({ baseURL: `${server.url()}/v1`, apiKey: 'test', maxRetries: 0 });
});

afterAll(async () => {
  await server.shutdown();
});

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
];

describe('model server over HTTP', () => {
  it('answers arithmetic with usage, deterministically', async () => {
    const req = { model: 'mock-accurate', messages: [{ role: 'user' as const, content: 'What is 2 + 3?' }] };
    const a = await client.chat.completions.create(req);
    const b = await client.chat.completions.create(req);
    expect(a.choices[0].message.content).toBe('5');
    expect(a.choices[0].finish_reason).toBe('stop');
    expect(a.usage).toEqual({ prompt_tokens: 11, completion_tokens: 1, total_tokens: 12 });
    expect(b).toEqual(a);
    expect(a.id).toMatch(/^chatcmpl-[0-9a-f]{29}$/);
  });

  it('answers the Responses API with the same rules: instructions, history, output_text and usage', async () => {
    const res = await client.responses.create({
      model: 'mock-accurate',
      instructions: 'Answer briefly.',
      input: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi' },
        { role: 'user', content: 'What is 2 + 3?' },
      ],
    });
    expect(res.output_text).toBe('5');
    expect(res.object).toBe('response');
    expect(res.status).toBe('completed');
    expect(res.output).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_[0-9a-f]{24}$/) as unknown, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: '5', annotations: [] }] }]);
    expect(res.usage?.output_tokens).toBe(1);
    await expect(client.responses.create({ model: 'mock-accurate', input: 'What is 2 + 3?', stream: true })).rejects.toThrow(/without streaming/);
  });

  it('answers a judge prompt', async () => {
    const res = await client.chat.completions.create({
      model: 'mock-judge',
      temperature: 0,
      messages: [
        { role: 'system', content: 'Did the agent complete the task? Answer [[True]] or [[False]] with ((explanation)).' },
        { role: 'user', content: '<message_history>[{"role":"tool","tool_call_id":"c","content":"exception: boom"}]</message_history>' },
      ],
    });
    expect(res.choices[0].message.content).toBe('[[False]]((A tool result is an error: exception: boom.))');
  });

  it('returns a tool call, the same one for the same request', async () => {
    const req = { model: 'mock-accurate', tools, messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }] };
    const a = await client.chat.completions.create(req);
    const b = await client.chat.completions.create(req);
    expect(a.choices[0].finish_reason).toBe('tool_calls');
    const call = a.choices[0].message.tool_calls![0];
    expect(call.type === 'function' && call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(b.choices[0].message.tool_calls![0].id).toBe(call.id);
  });

  it('streams text and tool calls as SSE chunks ending in [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'mock-accurate',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello there model' }],
    });
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('You said: Hello there model');
    expect(chunks).toBe(1 + 5 + 1 + 1);
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });

    const runner = client.chat.completions.stream({ model: 'mock-accurate', tools, messages: [{ role: 'user', content: 'weather in Oslo?' }] });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0].message.tool_calls![0];
    expect(call.type === 'function' && call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(final.choices[0].finish_reason).toBe('tool_calls');
  });

  it('lists models and answers errors in the OpenAI shape', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('mock-sloppy');

    const limited = await client.chat.completions.create({ model: 'mock-429', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rate_limit_exceeded');

    const broken = await client.chat.completions
      .create({ model: 'mock-accurate', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'X-Mock-Fail': '500' } })
      .catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(OpenAI.InternalServerError);

    const bad = await client.chat.completions.create({ model: 'mock-accurate', messages: [] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('fails a request only the first n times with X-Mock-Fail-Times, so a retry succeeds', async () => {
    const retrying = new OpenAI({ baseURL: `${server.url()}/v1`, apiKey: 'test', maxRetries: 2 });
    const res = await retrying.chat.completions.create(
      { model: 'mock-accurate', messages: [{ role: 'user', content: 'What is 9 * 9?' }] },
      { headers: { 'X-Mock-Fail': '429', 'X-Mock-Fail-Times': '1', 'X-Mock-Retry-After': '0' } },
    );
    expect(res.choices[0].message.content).toBe('81');
  });
});
