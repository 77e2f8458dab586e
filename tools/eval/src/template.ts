type TemplatePart = { text: string } | { variable: string; offset: number };

/** A `{variable}` template: `{{` and `}}` are literal braces, a brace not around a name is literal too (JSON examples stay intact). */
export interface Template {
  source: string;
  parts: TemplatePart[];
  variables: string[];
}

const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function parseTemplate(source: string): Template {
  const parts: TemplatePart[] = [];
  let last = 0;
  let text = '';
  for (const m of source.matchAll(TOKEN)) {
    text += source.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[1] === undefined) {
      text += m[0][0];
      continue;
    }
    if (text) parts.push({ text });
    text = '';
    parts.push({ variable: m[1], offset: m.index });
  }
  text += source.slice(last);
  if (text) parts.push({ text });
  const variables = [...new Set(parts.flatMap((p) => ('variable' in p ? [p.variable] : [])))];
  return { source, parts, variables };
}

/** Renders with every variable present (callers check `variables` first); values that are not text become JSON. */
export function renderTemplate(t: Template, vars: Readonly<Record<string, unknown>>): string {
  return t.parts
    .map((p) => {
      if ('text' in p) return p.text;
      const v = vars[p.variable];
      if (v === undefined) throw new Error(`template variable "${p.variable}" has no value`);
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || v === null ? String(v) : JSON.stringify(v);
    })
    .join('');
}

/** 0-based line inside the template source where `variable` first appears. */
export function variableLineOffset(t: Template, variable: string): number {
  const part = t.parts.find((p) => 'variable' in p && p.variable === variable) as { offset: number } | undefined;
  return part ? t.source.slice(0, part.offset).split('\n').length - 1 : 0;
}

/**
 * llmeval's variables "are or will be cast to strings": each value as Python's str() writes a
 * scalar (`True`, `None`, `4`), other values as JSON. Prompt templates and prompt code see these.
 */
export function castVariables(vars: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, castVariable(v)]));
}

function castVariable(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}
