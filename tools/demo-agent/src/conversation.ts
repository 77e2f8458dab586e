import type OpenAI from 'openai';
import type { AgentTracer } from '../../../shared/runtime/instrument/index.ts';
import { TOOL_DEFINITIONS, runTool } from './tools.ts';

export const SYSTEM_PROMPT = 'You are a helpful assistant. Use the tools to answer questions about the weather and orders.';
/** A looping model is cut off after this many model calls. */
const MAX_TURNS = 4;

export interface ConversationOptions {
  client: OpenAI;
  agent: AgentTracer;
  agentName: string;
  model: string;
  question: string;
}

/** One agent run: model → tools → model … until a text answer or MAX_TURNS. Resolves to its trace id. */
export async function runConversation(options: ConversationOptions): Promise<string> {
  const { client, agent, model } = options;
  let traceId = '';
  await agent.runAgent(options.agentName, options.question, async (run) => {
    traceId = run.span.spanContext().traceId;
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: options.question },
    ];
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const request = { model, messages: [...messages], tools: TOOL_DEFINITIONS, temperature: 0 };
      const completion = await agent.recordModelCall({ model, inputMessages: request.messages, tools: TOOL_DEFINITIONS, temperature: 0 }, () =>
        client.chat.completions.create(request),
      );
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('the model answered with no choices');
      messages.push(message);
      const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
      if (calls.length === 0) return message.content ?? '';
      for (const call of calls) {
        let content: string;
        try {
          const result = await agent.recordToolCall({ name: call.function.name, callId: call.id, arguments: call.function.arguments }, () =>
            runTool(call.function.name, call.function.arguments),
          );
          content = JSON.stringify(result);
        } catch (err) {
          // The tool span already carries the error; the model is told, as real agents do.
          content = JSON.stringify({ error: `${call.function.name} failed: ${err instanceof Error ? err.message : String(err)}` });
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
    return `Gave up after ${MAX_TURNS} model calls without an answer.`;
  });
  return traceId;
}
