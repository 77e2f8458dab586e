import type { Attributes } from '../otlp/types.ts';

// Helpers for values that arrive as JSON inside strings, sometimes twice encoded.

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function looksLikeJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    // { [ "
    return c === 123 || c === 91 || c === 34;
  }
  return false;
}

/** A string holding JSON (object, array or string) becomes its value; anything else is returned as is. */
export function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string' || !looksLikeJson(v)) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Like parseMaybeJson, but unwraps JSON that was encoded twice ('"{\"a\":1}"'). */
export function parseDeepJson(v: unknown): unknown {
  let cur = v;
  for (let i = 0; i < 3 && typeof cur === 'string'; i++) {
    const next = parseMaybeJson(cur);
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

/**
 * Tool-call arguments as a canonical (compact) JSON string, whatever arrived: an object, a JSON
 * string, or a JSON string of a JSON string. Text that is not JSON is kept verbatim: it cannot be
 * canonicalized, and wrapping it would misstate what the model produced.
 */
export function canonicalArguments(v: unknown): string {
  if (v === undefined || v === null) return '{}';
  const parsed = parseDeepJson(v);
  if (typeof parsed === 'string') {
    return typeof v === 'string' && parsed === v ? v : JSON.stringify(parsed);
  }
  return JSON.stringify(parsed);
}

/**
 * A tool result or message content as text: strings are kept (a JSON-encoded string is decoded
 * once), structured values become compact JSON, so the same result reads the same from every family.
 */
export function contentText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') {
    const parsed = parseMaybeJson(v);
    if (parsed === v) return v;
    if (typeof parsed === 'string') return parsed;
    return JSON.stringify(parsed);
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function asString(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/**
 * Marks an attribute consumed. Set to undefined rather than deleted: `delete` turns the object into a
 * slow dictionary, and JSON.stringify leaves undefined-valued keys out of the envelope anyway.
 */
export function remove(attrs: Attributes, key: string): void {
  if (attrs[key] !== undefined) attrs[key] = undefined;
}

/** Reads and removes one attribute; removal keeps the envelope free of what `genai` already holds. */
export function take(attrs: Attributes, key: string): unknown {
  const v = attrs[key];
  if (v !== undefined) attrs[key] = undefined;
  return v;
}

/** Reads one attribute through `parse`; removes it only if it parsed, so unreadable content stays visible. */
export function takeParsed<T>(attrs: Attributes, key: string, parse: (v: unknown) => T | undefined): T | undefined {
  const v = attrs[key];
  if (v === undefined) return undefined;
  const parsed = parse(v);
  if (parsed !== undefined) attrs[key] = undefined;
  return parsed;
}

export function takeString(attrs: Attributes, key: string): string | undefined {
  return asString(take(attrs, key));
}

export function takeNumber(attrs: Attributes, key: string): number | undefined {
  return asNumber(take(attrs, key));
}

/**
 * Groups flattened indexed keys (`prefix.0.role`, `prefix.0.tool_calls.1.name`) into one record per
 * index, sorted by index, and removes them from `attrs`.
 */
export function takeIndexed(attrs: Attributes, prefix: string): Array<Record<string, unknown>> {
  const byIndex = new Map<number, Record<string, unknown>>();
  const p = `${prefix}.`;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(p) || attrs[key] === undefined) continue;
    const rest = key.slice(p.length);
    const dot = rest.indexOf('.');
    const idxText = dot === -1 ? rest : rest.slice(0, dot);
    if (!/^\d+$/.test(idxText)) continue;
    const idx = Number(idxText);
    let rec = byIndex.get(idx);
    if (!rec) {
      rec = {};
      byIndex.set(idx, rec);
    }
    rec[dot === -1 ? '' : rest.slice(dot + 1)] = attrs[key];
    attrs[key] = undefined;
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}

/** Splits one flat record (`tool_calls.0.id`, …) into the indexed sub-records under `prefix`. */
export function subIndexed(rec: Record<string, unknown>, prefix: string): Array<Record<string, unknown>> {
  return takeIndexed(rec, prefix);
}
