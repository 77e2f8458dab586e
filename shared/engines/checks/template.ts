import type { ToolDefinition } from '../../contracts/schemas/index.ts';
import type { CheckInput } from './contract.ts';
import { encodeJudgeData } from './judge-data.ts';
import { audioForJudge } from './lib/audio.ts';

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
 * a `{` not followed by `identifier}` is literal too (JSON in an example stays as written). A
 * `{name}` that is no template variable "will be left as-is in the prompt" (Okareo's checks
 * documentation): literal text, listed in `unknown` for a warning.
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
        if (field === undefined) {
          unknown.push(name);
          text += m[0];
        } else {
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

/** What a template with no variable at all gives the judge after its text: the row's output, input and expected result. */
const IMPLICIT_DATA = '\n\nThe data to evaluate: {model_output}, the input {scenario_input} and the expected result {scenario_result}.';

/**
 * The template the judge reads. One written with no template variable (Okareo's own examples do:
 * "Only output True if the model_output is at least 20 characters long") is about the row all the
 * same: its model_output, scenario_input and scenario_result follow the text.
 */
export function judgedTemplate(template: string): string {
  return parseTemplate(template).parts.some((p) => 'variable' in p) ? template : `${template}${IMPLICIT_DATA}`;
}

/** Warnings at creation: `{name}`s that are no template variable, left as-is in the prompt. */
export function templateWarnings(template: string): string[] {
  const { parts, unknown } = parseTemplate(template);
  const none = parts.some((p) => 'variable' in p) ? [] : ['the template uses no template variable: the judge gets the row\'s {model_output}, {scenario_input} and {scenario_result} after it'];
  if (unknown.length === 0) return none;
  const names = unknown.map((n) => `{${n}}`).join(', ');
  return [...none, `${names} ${unknown.length === 1 ? 'is no template variable and is' : 'are no template variables and are'} left as-is in the prompt (the variables: ${Object.keys(TEMPLATE_VARIABLES).map((n) => `{${n}}`).join(', ')})`];
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

/**
 * What a judge reads for one field: JSON encoded by `encodeJudgeData` (a list one item per line),
 * so that no trace text can pass for a turn, a fence or an answer.
 */
export function renderField(field: keyof CheckInput, input: CheckInput): string {
  const value = input[field];
  if (isMissing(value)) return '(not provided)';
  // A tool definition's outer `{type: "function"}` says nothing to a judge.
  if (field === 'tools') return encodeJudgeData((value as ToolDefinition[]).map((t) => t.function));
  // Audio reaches a judge as what it is, not as base64 (message turns carry their audio parts too).
  if (field === 'audio_messages' || field === 'audio_output' || field === 'message_history' || field === 'model_input' || field === 'simulation_message_history') {
    return encodeJudgeData(audioForJudge(value));
  }
  return encodeJudgeData(value);
}
