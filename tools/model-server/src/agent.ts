import { hashHex } from './hash.ts';
import type { ChatRequest, RequestMessage, RequestTool } from './request.ts';
import { lastUserText, messageText } from './request.ts';
import type { Reply } from './reply.ts';

const ERROR_WORDS = /\b(error|failed|failure|exception|timeout|timed out|unavailable)\b/i;
const LOOP_TRIGGER = /\b(keep checking|keep trying|check again|loop)\b/i;

interface Intent {
  tool: RequestTool;
  args: Record<string, unknown>;
}

function findTool(tools: RequestTool[], pattern: RegExp): RequestTool | undefined {
  return tools.find((t) => pattern.test(t.function.name));
}

/** The argument name a tool wants for its one subject: the schema's first required property, or a fallback. */
function argName(tool: RequestTool, fallback: string): string {
  const params = tool.function.parameters;
  const required = params && Array.isArray(params.required) ? (params.required as unknown[]) : [];
  if (typeof required[0] === 'string') return required[0];
  const props = params && typeof params.properties === 'object' && params.properties !== null ? Object.keys(params.properties) : [];
  return props.includes(fallback) ? fallback : (props[0] ?? fallback);
}

/** The city of "weather in <City>": a run of capitalised words, or else the one word that follows. */
function cityAfterWeather(text: string): string | null {
  const at = /weather\s+(?:in|for|at|of)\s+/i.exec(text);
  if (!at) return null;
  const rest = text.slice(at.index + at[0].length);
  const m = /^[A-ZÀ-Ý][\wÀ-ÿ'-]*(?:\s+[A-ZÀ-Ý][\wÀ-ÿ'-]*)*/.exec(rest) ?? /^[\wÀ-ÿ'-]+/.exec(rest);
  return m ? m[0] : null;
}

/** Which tool the scripted agent calls for a user's question, if any. */
function intentFor(text: string, tools: RequestTool[]): Intent | null {
  const weather = cityAfterWeather(text);
  const weatherTool = findTool(tools, /weather/i);
  if (weather && weatherTool) return { tool: weatherTool, args: { [argName(weatherTool, 'city')]: weather } };
  const order = /order\s*(?:#|number|id)?\s*:?\s*#?([A-Za-z0-9][\w-]*\d[\w-]*)/i.exec(text);
  const orderTool = findTool(tools, /order/i);
  if (order && orderTool) return { tool: orderTool, args: { [argName(orderTool, 'order_id')]: order[1] } };
  // Otherwise a tool named in the question is called with no arguments.
  const named = tools.find((t) => text.toLowerCase().includes(t.function.name.toLowerCase()));
  return named ? { tool: named, args: {} } : null;
}

function callReply(request: ChatRequest, name: string, args: string): Reply {
  // The id hashes the whole request, so it is stable across runs and different on every turn.
  const id = `call_${hashHex({ request: request.messages, name, args }, 24)}`;
  return { content: null, toolCalls: [{ id, name, arguments: args }], finishReason: 'tool_calls', mode: 'agent' };
}

function lastAssistantCall(messages: RequestMessage[]): { name: string; arguments: string } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const call = messages[i].tool_calls?.[0];
    if (messages[i].role === 'assistant' && call) return { name: call.function.name, arguments: call.function.arguments };
  }
  return null;
}

function describeResult(raw: string): string {
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`)
        .join(', ');
    }
  } catch {
    // not JSON: quote it as is
  }
  return raw;
}

/**
 * The scripted agent. Returns null when the request is not an agent turn (no tools offered, or
 * nothing the script knows how to handle), so the caller can fall through to the other modes.
 */
export function agentTurn(request: ChatRequest): Reply | null {
  const tools = request.tools ?? [];
  if (tools.length === 0) return null;
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const question = lastUserText(request);
  if (last.role === 'tool') {
    const previous = lastAssistantCall(messages);
    if (LOOP_TRIGGER.test(question) && previous) return callReply(request, previous.name, previous.arguments);
    const result = messageText(last);
    if (ERROR_WORDS.test(result)) {
      const tool = previous?.name ?? 'the tool';
      return { content: `I'm sorry, I couldn't complete that: ${tool} failed (${describeResult(result)}). Please try again later.`, toolCalls: [], finishReason: 'stop', mode: 'agent' };
    }
    return { content: `Here is what I found: ${describeResult(result)}.`, toolCalls: [], finishReason: 'stop', mode: 'agent' };
  }
  if (last.role !== 'user') return null;
  const intent = intentFor(question, tools);
  if (!intent) return null;
  return callReply(request, intent.tool.function.name, JSON.stringify(intent.args));
}
