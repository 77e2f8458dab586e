import type { ChatMessage, ToolDefinition, UnitToolCall } from '../schemas/index.ts';
import type { CheckInput } from './contract.ts';

/** Template variable → the CheckInput field it reads. Aliases are Okareo's names. */
export const TEMPLATE_VARIABLES: Readonly<Record<string, keyof CheckInput>> = {
  generation: 'model_output',
  // Okareo's documented example templates write {output}.
  output: 'model_output',
  model_output: 'model_output',
  input: 'scenario_input',
  scenario_input: 'scenario_input',
  result: 'scenario_result',
  scenario_result: 'scenario_result',
  model_input: 'model_input',
  message_history: 'message_history',
  tool_calls: 'tool_calls',
  tools: 'tools',
  simulation_message_history: 'simulation_message_history',
  audio_messages: 'audio_messages',
  audio_output: 'audio_output',
};

export type TemplatePart = { text: string } | { variable: string; field: keyof CheckInput };

/**
 * Splits a template into literal text and `{name}` variables. `{{` and `}}` are literal braces;
 * a `{` not followed by `identifier}` is literal too (JSON in an example stays as written).
 */
export function parseTemplate(template: string): { parts: TemplatePart[]; unknown: string[] } {
  const parts: TemplatePart[] = [];
  const unknown: string[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      text += ch;
      i += 2;
      continue;
    }
    if (ch === '{') {
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(template.slice(i));
      if (m) {
        const name = m[1];
        const field = TEMPLATE_VARIABLES[name];
        if (field === undefined) unknown.push(name);
        else {
          if (text) parts.push({ text });
          text = '';
          parts.push({ variable: name, field });
        }
        i += m[0].length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  if (text) parts.push({ text });
  return { parts, unknown: [...new Set(unknown)] };
}

/** Problems with a model check's template: no variable at all, or unknown `{name}`s. */
export function templateProblems(template: string): string[] {
  const { parts, unknown } = parseTemplate(template);
  const problems: string[] = [];
  if (unknown.length > 0) problems.push(`unknown template variables: ${unknown.map((n) => `{${n}}`).join(', ')} (allowed: ${Object.keys(TEMPLATE_VARIABLES).map((n) => `{${n}}`).join(', ')})`);
  if (!parts.some((p) => 'variable' in p)) problems.push('the template uses none of the template variables');
  return problems;
}

/** The CheckInput fields a template reads, in first-use order. */
export function templateFields(template: string): (keyof CheckInput)[] {
  const fields: (keyof CheckInput)[] = [];
  for (const p of parseTemplate(template).parts) if ('field' in p && !fields.includes(p.field)) fields.push(p.field);
  return fields;
}

export function isMissing(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

function messageLine(m: ChatMessage, i: number): string {
  const who = m.name ? `${m.role} (${m.name})` : m.role;
  const lines = [`[${i}] ${who}: ${m.content ?? ''}`];
  for (const tc of m.tool_calls ?? []) lines.push(`    -> calls ${tc.function.name}(${tc.function.arguments}) id=${tc.id}`);
  if (m.tool_call_id) lines[0] = `[${i}] ${who} result for ${m.tool_call_id}: ${m.content ?? ''}`;
  return lines.join('\n');
}

/** Text a judge reads for one field: transcripts as numbered lines, structures as JSON. */
export function renderField(field: keyof CheckInput, input: CheckInput): string {
  const value = input[field];
  if (isMissing(value)) return '(not provided)';
  switch (field) {
    case 'model_input':
    case 'message_history':
    case 'simulation_message_history':
      return (value as ChatMessage[]).map(messageLine).join('\n');
    case 'tool_calls':
      return (value as UnitToolCall[])
        .map((c, i) => `#${i + 1} ${c.name}(${c.arguments}) -> ${c.error !== null ? `ERROR ${c.error}` : (c.result ?? '(no result)')}`)
        .join('\n');
    case 'tools':
      return (value as ToolDefinition[]).map((t) => JSON.stringify(t.function)).join('\n');
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}
