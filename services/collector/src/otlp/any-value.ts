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

/**
 * How many values one span (or log record, or resource) may carry in all: its attributes, events
 * and links, their attributes, and every entry of a nested array or kvlist. Converting a span is
 * one step of the collector's sliced conversion, so this bounds how long one span holds the event
 * loop: 100,000 attributes took 390–480 ms; at this bound the costliest shape (flattened
 * `gen_ai.prompt.<n>.*` attributes) takes about 40 ms on a loaded 2-core machine. OTel SDKs keep
 * 128 attributes, events and links per span by default. A span over the bound is rejected alone,
 * counted in partialSuccess with this reason, never cut (a cut span would be scored as if whole).
 */
export const MAX_VALUES_PER_ITEM = 4_096;

/** What is left of MAX_VALUES_PER_ITEM while one span (log record, resource) is decoded. */
export interface ValueBudget {
  left: number;
}

export function valueBudget(): ValueBudget {
  return { left: MAX_VALUES_PER_ITEM };
}

/** `what`: named in the reason when it is not the span or log record itself (`resource`). */
export function tooManyValues(what?: string): InvalidItemError {
  const reason = `more than ${MAX_VALUES_PER_ITEM} values (attributes, events, links and entries of nested arrays and kvlists together)`;
  return new InvalidItemError(what ? `${what}: ${reason}` : reason);
}

/** Takes `n` values from the budget before they are decoded; throws when it would go below zero. */
export function charge(budget: ValueBudget, n: number, what?: string): void {
  budget.left -= n;
  if (budget.left < 0) throw tooManyValues(what);
}
