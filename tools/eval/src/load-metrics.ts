import type { CheckDefinition } from '../../../shared/engines/checks/index.ts';
import type { CompiledExpression } from './expression/index.ts';
import { compileExpression, ExpressionError } from './expression/index.ts';
import type { Layered } from './layers.ts';
import { errorAt, isPlainObject, placeOf } from './layers.ts';
import type { MetricSpec } from './suite-types.ts';
import type { YamlPath } from './yaml-file.ts';

/** Names an inline metric expression may use. `value` only in `pass`. */
const METRIC_NAMES = ['actual', 'expected', 'input', 'messages'] as const;

const NAME_RE = /^[a-z][a-z0-9_]{0,99}$/;

export function compileAt(l: Layered, sub: YamlPath, source: unknown, names: readonly string[], what: string): CompiledExpression {
  if (typeof source !== 'string' && typeof source !== 'boolean' && typeof source !== 'number') throw errorAt(l, sub, `${what} must be an expression written as text`);
  try {
    return compileExpression(String(source), names);
  } catch (err) {
    if (err instanceof ExpressionError) throw errorAt(l, sub, `${what}: ${err.message} (at column ${err.pos + 1} of "${String(source)}")`);
    throw err;
  }
}

/**
 * `metrics:` entries: `exact_match` (or `{type: exact_match, ignore_case}`), an inline expression
 * (`{name, value: EXPR, pass: EXPR}`), or a check (`{check: catalog_name}` or
 * `{name, check: {kind: model|code, …}}`), or llmeval's Python (`{name, code}` setting `metric` and/or
 * `result`). A bare string is `exact_match` or a catalog name.
 */
export function loadMetrics(l: Layered): MetricSpec[] {
  if (!Array.isArray(l.value)) throw errorAt(l, [], 'metrics must be a list');
  const seen = new Set<string>();
  return l.value.map((m: unknown, i): MetricSpec => {
    const spec = loadMetric(l, i, m);
    if (seen.has(spec.name)) throw errorAt(l, [i], `two metrics are named "${spec.name}"`);
    seen.add(spec.name);
    return spec;
  });
}

function loadMetric(l: Layered, i: number, m: unknown): MetricSpec {
  const place = placeOf(l, [i]);
  if (typeof m === 'string') {
    if (m === 'exact_match') return { kind: 'exact_match', name: m, ignoreCase: false, place };
    if (!NAME_RE.test(m)) throw errorAt(l, [i], `"${m}" is not a metric: use exact_match, a check name, or a mapping`);
    return { kind: 'check', name: m, checkName: m, definition: null, place };
  }
  if (!isPlainObject(m)) throw errorAt(l, [i], 'a metric must be a name or a mapping');
  const allowed = new Set(['name', 'type', 'ignore_case', 'value', 'pass', 'expression', 'check', 'code', 'description']);
  for (const k of Object.keys(m)) if (!allowed.has(k)) throw errorAt(l, [i, k], `unknown metric key "${k}" (known: ${[...allowed].join(', ')})`);
  const explicitName = m.name;
  if (explicitName !== undefined && (typeof explicitName !== 'string' || !NAME_RE.test(explicitName))) {
    throw errorAt(l, [i, 'name'], `metric name must match ${NAME_RE.source}`);
  }
  if (m.type === 'exact_match') {
    return { kind: 'exact_match', name: explicitName ?? 'exact_match', ignoreCase: m.ignore_case === true, place };
  }
  if (m.type !== undefined && m.type !== 'expression' && m.type !== 'check') throw errorAt(l, [i, 'type'], `unknown metric type ${JSON.stringify(m.type)} (exact_match, expression, check)`);
  if (m.code !== undefined) {
    if (typeof m.code !== 'string' || m.code.trim() === '') throw errorAt(l, [i, 'code'], 'code must be Python that sets metric and/or result');
    if (!explicitName) throw errorAt(l, [i], 'a code metric needs a name');
    return { kind: 'code', name: explicitName, code: m.code, place };
  }
  if (m.check !== undefined) {
    if (typeof m.check === 'string') {
      return { kind: 'check', name: explicitName ?? m.check, checkName: m.check, definition: null, place };
    }
    if (!isPlainObject(m.check)) throw errorAt(l, [i, 'check'], 'check must be a catalog check name or a check definition');
    if (!explicitName) throw errorAt(l, [i], 'a metric with an inline check definition needs a name');
    return { kind: 'check', name: explicitName, checkName: explicitName, definition: checkDefinition(l, [i, 'check'], explicitName, m.check), place };
  }
  const valueSrc = m.value ?? m.expression;
  const valueKey = m.value !== undefined ? 'value' : 'expression';
  if (valueSrc === undefined && m.pass === undefined) throw errorAt(l, [i], 'a metric needs type: exact_match, check, value or pass');
  if (!explicitName) throw errorAt(l, [i], 'an expression metric needs a name');
  const value = valueSrc === undefined ? null : compileAt(l, [i, valueKey], valueSrc, METRIC_NAMES, `metric "${explicitName}" ${valueKey}`);
  const pass = m.pass === undefined ? null : compileAt(l, [i, 'pass'], m.pass, [...METRIC_NAMES, 'value'], `metric "${explicitName}" pass`);
  return { kind: 'expression', name: explicitName, value, pass, place, valuePlace: placeOf(l, [i, valueKey]), passPlace: placeOf(l, [i, 'pass']) };
}

function checkDefinition(l: Layered, at: YamlPath, name: string, c: Record<string, unknown>): CheckDefinition {
  const outputType = c.output_type ?? 'pass_fail';
  if (outputType !== 'pass_fail' && outputType !== 'score') throw errorAt(l, [...at, 'output_type'], 'output_type must be pass_fail or score');
  const common = {
    name,
    description: typeof c.description === 'string' ? c.description : `eval metric ${name}`,
    outputType,
    ...(Array.isArray(c.range) ? { range: c.range as [number, number] } : {}),
    ...(typeof c.threshold === 'number' ? { threshold: c.threshold } : {}),
  } as const;
  if (c.kind === 'model') {
    if (typeof c.prompt !== 'string') throw errorAt(l, [...at, 'prompt'], 'a model check needs a prompt template');
    return { ...common, kind: 'model', promptTemplate: c.prompt, ...(typeof c.model === 'string' ? { model: c.model } : {}) };
  }
  if (c.kind === 'code') {
    if (typeof c.source !== 'string') throw errorAt(l, [...at, 'source'], 'a code check needs source: a module exporting evaluate(args)');
    const language = c.language === 'javascript' || c.language === 'python' ? c.language : 'typescript';
    return { ...common, kind: 'code', source: c.source, language, ...(typeof c.timeout_ms === 'number' ? { timeoutMs: c.timeout_ms } : {}) };
  }
  throw errorAt(l, [...at, 'kind'], 'check kind must be model or code');
}
