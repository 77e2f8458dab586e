import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { ToolDefinition, UnitToolCall } from '../../../contracts/schemas/index.ts';

// One compiler and one compiled validator per distinct schema text: tool definitions repeat on
// every unit of an agent, and compiling is the expensive part of ajv.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true });
const cache = new Map<string, ValidateFunction | string>();
const MAX_CACHED = 2000;

function validatorFor(parameters: Record<string, unknown>): ValidateFunction | string {
  const key = JSON.stringify(parameters);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let compiled: ValidateFunction | string;
  try {
    compiled = ajv.compile(parameters);
  } catch (err) {
    compiled = `the tool's JSON Schema does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

/** Problems with one call against the tool definitions: unknown tool, arguments not JSON, schema violations. */
export function callSchemaProblems(call: UnitToolCall, tools: readonly ToolDefinition[]): string[] {
  const tool = tools.find((t) => t.function.name === call.name);
  if (!tool) return [`${call.name} is not among the defined tools`];
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return ['arguments are not valid JSON'];
  }
  if (!tool.function.parameters) return [];
  const validate = validatorFor(tool.function.parameters);
  if (typeof validate === 'string') return [validate];
  if (validate(args)) return [];
  return (validate.errors ?? []).map((e) => {
    if (e.keyword === 'required') return `missing required parameter ${String((e.params as { missingProperty?: string }).missingProperty)}`;
    if (e.keyword === 'additionalProperties') return `unknown parameter ${String((e.params as { additionalProperty?: string }).additionalProperty)}`;
    return `${e.instancePath || 'arguments'} ${e.message ?? 'is invalid'}`;
  });
}
