import { describe, expect, it } from 'vitest';
import { respond } from './respond.ts';
import { responsesBody, responsesToChat, ResponsesRequestSchema } from './responses.ts';

// The Responses API as the OpenAI Agents SDK sends it: flat function tools, the model's calls
// re-sent as `function_call` items, their results as `function_call_output` items.
const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'The current weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true },
  { type: 'web_search_preview' },
];

function answer(body: unknown): Record<string, unknown> {
  const request = ResponsesRequestSchema.parse(body);
  const chat = responsesToChat(request);
  return responsesBody(request, chat, respond(chat));
}

describe('the Responses API with function tools', () => {
  it('calls the offered tool, then answers from its result', () => {
    const first = answer({ model: 'gpt-4o-mini', instructions: 'Use the tools.', input: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: TOOLS });
    const output = first.output as Array<Record<string, unknown>>;
    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    const callId = output[0].call_id as string;
    expect(callId).toMatch(/^call_[0-9a-f]{24}$/);

    const second = answer({
      model: 'gpt-4o-mini',
      instructions: 'Use the tools.',
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { type: 'function_call', call_id: callId, name: 'get_weather', arguments: '{"city":"Paris"}', id: output[0].id },
        { type: 'function_call_output', call_id: callId, output: 'sunny, 22 C' },
      ],
      tools: TOOLS,
    });
    expect(second.output).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_/), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Here is what I found: sunny, 22 C.', annotations: [] }] }]);
  });

  it('re-sends consecutive calls of one turn as one assistant message with both calls', () => {
    const chat = responsesToChat(
      ResponsesRequestSchema.parse({
        model: 'm',
        input: [
          { role: 'user', content: 'Weather in Paris and Berlin?' },
          { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Berlin"}' },
          { type: 'function_call_output', call_id: 'call_a', output: 'sunny' },
          { type: 'function_call_output', call_id: 'call_b', output: 'cloudy' },
        ],
        tools: TOOLS,
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Berlin?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } },
        ],
      },
      { role: 'tool', content: 'sunny', tool_call_id: 'call_a' },
      { role: 'tool', content: 'cloudy', tool_call_id: 'call_b' },
    ]);
    // Built-in tools have no name and are not offered.
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'The current weather in a city.', parameters: TOOLS[0].parameters } }]);
  });

  it('answers as before without tools', () => {
    expect(answer({ model: 'mock-accurate', input: 'What is 2 + 3?' }).output).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_/), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: '5', annotations: [] }] }]);
  });
});
