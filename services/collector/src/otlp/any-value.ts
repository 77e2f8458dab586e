import type { Attributes } from './types.ts';
import { InvalidItemError } from './types.ts';

/**
 * How deeply arrayValue/kvlistValue may nest inside one AnyValue (an attribute, a log body), in
 * both encodings alike. A plain value is depth 0, `["a"]` depth 1, `{"a": ["b"]}` depth 2. Real
 * instrumentation stays far below (a structured `gen_ai.input.messages` carrying a nested JSON
 * Schema is about 15); a deeper value rejects its span or log record, it is never cut.
 */
export const MAX_ANY_VALUE_DEPTH = 64;

export function tooDeep(): InvalidItemError {
  return new InvalidItemError(`nested deeper than ${MAX_ANY_VALUE_DEPTH} arrays/kvlists`);
}

/** A short, printable rendering of a hostile value for an error message. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}

/** `out[key] = value`, also for the key `__proto__` (which plain assignment would turn into a prototype change). */
export function setAttribute(out: Attributes, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** `attribute "gen_ai.input.messages"`, with the key cut for the message. */
export function attributeLabel(prefix: string, key: string): string {
  return `${prefix} ${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}`;
}
