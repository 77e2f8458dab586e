import type OpenAI from 'openai';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';

/** The demo's real tools: local functions the agent runs when the model asks for them. */
export const TOOL_DEFINITIONS: OpenAI.ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Status of a customer order',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  },
];

const WEATHER: Record<string, { forecast: string; temperature_c: number }> = {
  paris: { forecast: 'sunny', temperature_c: 22 },
  london: { forecast: 'rainy', temperature_c: 14 },
  oslo: { forecast: 'cloudy', temperature_c: 3 },
  'new york': { forecast: 'windy', temperature_c: 18 },
};

class ToolFailure extends PermanentError {
  override name = 'ToolFailure';
}

function getWeather(args: Record<string, unknown>): { city: string; forecast: string; temperature_c: number } {
  const city = typeof args.city === 'string' ? args.city : '';
  const found = WEATHER[city.toLowerCase()];
  if (!found) throw new ToolFailure(`unknown city: ${city}`);
  return { city, ...found };
}

function lookupOrder(args: Record<string, unknown>): never {
  // The demo's broken dependency: the order service never answers.
  throw new ToolFailure(`order service timeout while looking up ${String(args.order_id)}`);
}

const TOOLS: Record<string, (args: Record<string, unknown>) => unknown> = { get_weather: getWeather, lookup_order: lookupOrder };

/** Runs a tool by name; throws ToolFailure for unknown tools, bad arguments and the tool's own errors. */
export function runTool(name: string, rawArguments: string): unknown {
  const tool = TOOLS[name];
  if (!tool) throw new ToolFailure(`unknown tool: ${name}`);
  let args: unknown;
  try {
    args = JSON.parse(rawArguments) as unknown;
  } catch {
    throw new ToolFailure(`arguments are not JSON: ${rawArguments}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ToolFailure('arguments must be an object');
  return tool(args as Record<string, unknown>);
}
