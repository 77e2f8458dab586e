import { existsSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { positiveInt } from './load-config.ts';
import { compileAt, loadMetrics } from './load-metrics.ts';
import type { Layered, Layers } from './layers.ts';
import { composeFile, errorAt, isPlainObject, placeOf } from './layers.ts';
import type { CompiledExpression } from './expression/index.ts';
import type { PromptSource, PromptSuite, Reference } from './suite-types.ts';
import type { Template } from './template.ts';
import { parseTemplate, variableLineOffset } from './template.ts';
import { EvalConfigError } from './eval-error.ts';
import { readYamlFile } from './yaml-file.ts';

/** Keys with a meaning of their own; every other key of a prompt file goes to the API unchanged. */
const PROMPT_KEYS = new Set([
  'name', 'description', 'messages', 'prompt', 'module', 'code', 'variables', 'defaults', 'metrics', 'references',
  'n_tries', 'metrics_rollup', 'sweep', 'base_url', 'api_key',
]);

export const ROLLUP_NAMES = ['num_passes', 'num_fails', 'num_skip_passes', 'num_skip_fails', 'n_tries'] as const;
const ROLLUP_SHORTHANDS: Record<string, string | null> = {
  all: null,
  majority: 'num_passes > num_fails',
  any: 'num_passes > 0',
};
// llmeval writes human / ai for user / assistant.
const ROLES: Readonly<Record<string, ChatMessage['role']>> = { system: 'system', user: 'user', assistant: 'assistant', human: 'user', ai: 'assistant' };

export function loadPrompt(path: string, base: Layers, overrides: Layers, defaultTries: number): PromptSuite {
  const file = readYamlFile(path);
  const layers: Layers = new Map(base);
  for (const [k, l] of composeFile(file)) layers.set(k, l);
  for (const [k, l] of overrides) layers.set(k, l);
  const fileLayer: Layered = { value: file.data, file, path: [] };

  const nameLayer = layers.get('name');
  const name = nameLayer ? nameLayer.value : basename(path, extname(path)).replace(/\.prompt$/, '');
  if (typeof name !== 'string' || name === '') throw errorAt(nameLayer ?? fileLayer, [], 'name must be text');

  const sweep = loadSweep(layers.get('sweep'), layers);
  const params: Record<string, unknown> = {};
  // A list given on the command line is a sweep, not a parameter value.
  for (const [k, l] of layers) if (!PROMPT_KEYS.has(k) && !(l.file === null && Array.isArray(l.value))) params[k] = l.value;

  const variablesLayer = layers.get('variables');
  const variables = variablesLayer ? loadVariables(variablesLayer) : {};

  const source = loadSource(layers, fileLayer);
  const models = sweep.model ?? [params.model];
  if (source.kind === 'messages' && !models.every((m) => typeof m === 'string' && m !== '')) {
    throw errorAt(layers.get('model') ?? fileLayer, [], `prompt "${name}" needs a model (a model name as text)`);
  }

  const metricsLayer = layers.get('metrics');
  const metrics = metricsLayer ? loadMetrics(metricsLayer) : [];
  const refsLayer = layers.get('references');
  const references = refsLayer ? loadReferences(refsLayer) : [];
  if (references.length === 0) throw errorAt(refsLayer ?? fileLayer, [], `prompt "${name}" has no references (add references, or pull them in with defaults: tests-file.yaml)`);
  checkTemplateVariables(source, variables, references);

  const triesLayer = layers.get('n_tries');
  const nTries = triesLayer ? positiveInt(triesLayer, 'n_tries') : defaultTries;

  const rollupLayer = layers.get('metrics_rollup');
  let rollup: CompiledExpression | null = null;
  let rollupSource = 'all';
  let rollupCode: string | null = null;
  if (rollupLayer && isPlainObject(rollupLayer.value)) {
    const { name: rollupName, code } = rollupLayer.value;
    if (typeof code !== 'string' || code.trim() === '') throw errorAt(rollupLayer, ['code'], 'metrics_rollup needs code: Python that sets result from num_passes, num_fails, num_skip_passes, num_skip_fails');
    rollupCode = code;
    rollupSource = typeof rollupName === 'string' ? rollupName : 'code';
  } else if (rollupLayer) {
    const v = rollupLayer.value;
    if (typeof v !== 'string') throw errorAt(rollupLayer, [], 'metrics_rollup must be all, majority, any, an expression, or {name, code}');
    rollupSource = v;
    const expr = v in ROLLUP_SHORTHANDS ? ROLLUP_SHORTHANDS[v]! : v;
    if (expr !== null) rollup = compileAt(rollupLayer, [], expr, ROLLUP_NAMES, 'metrics_rollup');
  }


  const str = (k: string): string | null => {
    const l = layers.get(k);
    if (!l || l.value === null || l.value === undefined) return null;
    if (typeof l.value !== 'string') throw errorAt(l, [], `${k} must be text`);
    return l.value;
  };

  return {
    name,
    file: file.display,
    place: { file: file.display, line: 1 },
    params,
    variables,
    source,
    metrics,
    references,
    nTries,
    rollup,
    rollupSource,
    rollupCode,
    rollupPlace: rollupLayer ? placeOf(rollupLayer) : { file: file.display, line: undefined },
    sweep,
    baseUrl: str('base_url'),
    apiKey: str('api_key'),
    raw: Object.fromEntries([...layers].filter(([k]) => k !== 'references').map(([k, l]) => [k, l.value])),
  };
}

function loadSweep(sweepLayer: Layered | undefined, layers: Layers): Record<string, unknown[]> {
  const sweep: Record<string, unknown[]> = {};
  if (sweepLayer) {
    if (!isPlainObject(sweepLayer.value)) throw errorAt(sweepLayer, [], 'sweep must be a mapping of parameter names to lists of values');
    for (const [k, v] of Object.entries(sweepLayer.value)) {
      if (PROMPT_KEYS.has(k)) throw errorAt(sweepLayer, [k], `cannot sweep over "${k}"; sweep over model parameters (model, temperature, …)`);
      const list = Array.isArray(v) ? v : [v];
      if (list.length === 0) throw errorAt(sweepLayer, [k], `sweep over "${k}" has no values`);
      sweep[k] = list;
    }
  }
  // A parameter fixed on the command line replaces any sweep over it; a list given there is a sweep.
  for (const [k, l] of layers) {
    if (l.file !== null || PROMPT_KEYS.has(k)) continue;
    if (Array.isArray(l.value)) sweep[k] = l.value;
    else delete sweep[k];
  }
  return sweep;
}

interface MessageTemplate {
  role: ChatMessage['role'];
  template: Template;
  layer: Layered;
  at: Array<string | number>;
}

function loadMessages(layers: Layers): MessageTemplate[] | null {
  const messages = layers.get('messages');
  const prompt = layers.get('prompt');
  if (messages && prompt) throw errorAt(prompt, [], 'use either messages or prompt, not both');
  if (prompt) {
    // llmeval: `prompt: {content: …}`; ours: `prompt: text`.
    const content = isPlainObject(prompt.value) ? prompt.value.content : prompt.value;
    if (typeof content !== 'string') throw errorAt(prompt, isPlainObject(prompt.value) ? ['content'] : [], 'prompt must be a text template, or {content: text}');
    return [{ role: 'user', template: parseTemplate(content), layer: prompt, at: isPlainObject(prompt.value) ? ['content'] : [] }];
  }
  if (!messages) return null;
  if (!Array.isArray(messages.value) || messages.value.length === 0) throw errorAt(messages, [], 'messages must be a non-empty list of {role, content}');
  return messages.value.map((m: unknown, i) => {
    if (!isPlainObject(m)) throw errorAt(messages, [i], 'each message must be a mapping with role and content');
    const role = typeof m.role === 'string' ? ROLES[m.role] : undefined;
    if (!role) throw errorAt(messages, [i, 'role'], `role must be system, user (human) or assistant (ai), got ${JSON.stringify(m.role)}`);
    if (typeof m.content !== 'string') throw errorAt(messages, [i, 'content'], 'content must be a text template');
    return { role, template: parseTemplate(m.content), layer: messages, at: [i, 'content'] };
  });
}

const templatesByPrompt = new WeakMap<PromptSource, MessageTemplate[]>();

function loadSource(layers: Layers, fileLayer: Layered): PromptSource {
  const messages = loadMessages(layers);
  const moduleLayer = layers.get('module');
  const codeLayer = layers.get('code');
  let source: PromptSource;
  if (codeLayer) {
    if (moduleLayer) throw errorAt(codeLayer, [], 'use either code or module, not both');
    if (typeof codeLayer.value !== 'string' || codeLayer.value.trim() === '') throw errorAt(codeLayer, [], 'code must be Python that sets output (or messages to send to the model)');
    source = { kind: 'python', code: codeLayer.value, messages: messages?.map(({ role, template }) => ({ role, template })) ?? null };
  } else if (moduleLayer) {
    if (typeof moduleLayer.value !== 'string') throw errorAt(moduleLayer, [], 'module must be a path to a TypeScript or JavaScript file');
    const base = moduleLayer.file ? dirname(moduleLayer.file.path) : process.cwd();
    const path = resolve(base, moduleLayer.value);
    if (!existsSync(path)) throw errorAt(moduleLayer, [], `module not found: ${moduleLayer.value}`);
    source = { kind: 'module', path, messages: messages?.map(({ role, template }) => ({ role, template })) ?? null };
  } else {
    if (!messages) throw errorAt(fileLayer, [], 'a prompt file needs messages, prompt, code or module');
    source = { kind: 'messages', messages: messages.map(({ role, template }) => ({ role, template })) };
  }
  if (messages) templatesByPrompt.set(source, messages);
  return source;
}

/** Every reference must supply every template variable, checked before any model is called. */
function checkTemplateVariables(source: PromptSource, variables: Record<string, unknown>, references: Reference[]): void {
  const templates = templatesByPrompt.get(source) ?? [];
  for (const t of templates) {
    for (const v of t.template.variables) {
      const missing = references.find((r) => !(v in r.input) && !(v in variables));
      if (!missing) continue;
      const where = placeOf(t.layer, t.at);
      const line = where.line === undefined ? undefined : where.line + variableLineOffset(t.template, v) + (t.template.source.includes('\n') ? 1 : 0);
      const known = [...new Set([...Object.keys(variables), ...Object.keys(missing.input)])];
      throw new EvalConfigError(
        `unknown variable {${v}} in template: reference ${missing.id} (${missing.place.file}:${missing.place.line ?? '?'}) has no input "${v}" and no default under variables` +
          ` (known: ${known.length ? known.join(', ') : 'none'}); write {{${v}}} for literal braces`,
        where.file,
        line,
      );
    }
  }
}

/** A mapping of names to default values, or llmeval's list of `{name, value?}` (a name without a value has no default). */
function loadVariables(l: Layered): Record<string, unknown> {
  if (isPlainObject(l.value)) return l.value;
  if (!Array.isArray(l.value)) throw errorAt(l, [], 'variables must be a mapping of names to default values, or a list of {name, value}');
  const out: Record<string, unknown> = {};
  l.value.forEach((v: unknown, i) => {
    if (typeof v === 'string') return;
    if (!isPlainObject(v) || typeof v.name !== 'string') throw errorAt(l, [i], 'each variable must be {name} or {name, value}');
    const value = v.value ?? v.default;
    if (value !== undefined) out[v.name] = value;
  });
  return out;
}

function loadReferences(l: Layered): Reference[] {
  if (!Array.isArray(l.value)) throw errorAt(l, [], 'references must be a list');
  const ids = new Set<string>();
  return l.value.map((r: unknown, index): Reference => {
    if (!isPlainObject(r)) throw errorAt(l, [index], 'each reference must be a mapping with input (and optionally expected, skip, id)');
    const allowed = new Set(['id', 'input', 'expected', 'skip', 'description']);
    for (const k of Object.keys(r)) if (!allowed.has(k)) throw errorAt(l, [index, k], `unknown reference key "${k}" (known: ${[...allowed].join(', ')})`);
    const input = r.input ?? {};
    if (!isPlainObject(input)) throw errorAt(l, [index, 'input'], 'input must be a mapping of variable names to values');
    if (r.skip !== undefined && typeof r.skip !== 'boolean') throw errorAt(l, [index, 'skip'], 'skip must be true or false');
    if (r.id !== undefined && typeof r.id !== 'string' && typeof r.id !== 'number') throw errorAt(l, [index, 'id'], 'id must be text or a number');
    const id = r.id === undefined ? String(index + 1) : String(r.id);
    if (ids.has(id)) throw errorAt(l, [index, 'id'], `duplicate reference id "${id}"`);
    ids.add(id);
    return {
      index,
      id,
      input,
      expected: r.expected ?? null,
      hasExpected: 'expected' in r,
      skip: r.skip === true,
      place: placeOf(l, [index]),
    };
  });
}
