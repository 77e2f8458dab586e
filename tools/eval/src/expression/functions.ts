import { distance } from 'fastest-levenshtein';
import { ExpressionError } from './ast.ts';

type Fn = (args: unknown[], pos: number) => unknown;

const MAX_STRING = 10_000_000;

function str(v: unknown, fn: string, pos: number): string {
  if (typeof v === 'string') return v;
  throw new ExpressionError(`${fn}() expects text but got ${typeName(v)}`, pos);
}

function num(v: unknown, fn: string, pos: number): number {
  if (typeof v === 'number') return v;
  throw new ExpressionError(`${fn}() expects a number but got ${typeName(v)}`, pos);
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return typeof v === 'string' ? 'text' : `a ${typeof v}`;
}

function arity(name: string, min: number, max: number, fn: Fn): [string, Fn] {
  return [
    name,
    (args, pos) => {
      if (args.length < min || args.length > max) {
        const want = min === max ? `${min}` : `${min} to ${max}`;
        throw new ExpressionError(`${name}() takes ${want} argument${max === 1 ? '' : 's'}, got ${args.length}`, pos);
      }
      return fn(args, pos);
    },
  ];
}

/** Converts a value to text the way a report shows it. */
export function toText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function contains(hay: unknown, needle: unknown, pos: number): boolean {
  if (typeof hay === 'string') return hay.includes(toText(needle));
  if (Array.isArray(hay)) return hay.some((x) => looseEquals(x, needle));
  if (hay !== null && typeof hay === 'object') return typeof needle === 'string' && Object.hasOwn(hay, needle);
  throw new ExpressionError(`cannot look inside ${typeName(hay)}`, pos);
}

/** Equality for people writing checks: a number equals its own text ("5" == 5), lists compare item by item. */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a === 'number' && typeof b === 'string') return numericText(b) === a;
  if (typeof a === 'string' && typeof b === 'number') return numericText(a) === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => looseEquals(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

function numericText(s: string): number | null {
  const t = s.trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : null;
}

export const FUNCTIONS: ReadonlyMap<string, Fn> = new Map<string, Fn>([
  arity('lower', 1, 1, ([s], p) => str(s, 'lower', p).toLowerCase()),
  arity('upper', 1, 1, ([s], p) => str(s, 'upper', p).toUpperCase()),
  arity('strip', 1, 1, ([s], p) => str(s, 'strip', p).trim()),
  arity('trim', 1, 1, ([s], p) => str(s, 'trim', p).trim()),
  arity('contains', 2, 2, ([h, n], p) => contains(h, n, p)),
  arity('startswith', 2, 2, ([s, x], p) => str(s, 'startswith', p).startsWith(str(x, 'startswith', p))),
  arity('endswith', 2, 2, ([s, x], p) => str(s, 'endswith', p).endsWith(str(x, 'endswith', p))),
  arity('replace', 3, 3, ([s, a, b], p) => {
    const out = str(s, 'replace', p).split(str(a, 'replace', p)).join(str(b, 'replace', p));
    if (out.length > MAX_STRING) throw new ExpressionError('replace() result too long', p);
    return out;
  }),
  arity('split', 1, 2, ([s, sep], p) => {
    const text = str(s, 'split', p);
    return sep === undefined ? text.trim().split(/\s+/).filter(Boolean) : text.split(str(sep, 'split', p));
  }),
  arity('join', 1, 2, ([list, sep], p) => {
    if (!Array.isArray(list)) throw new ExpressionError(`join() expects a list but got ${typeName(list)}`, p);
    return list.map(toText).join(sep === undefined ? '' : str(sep, 'join', p));
  }),
  arity('len', 1, 1, ([v], p) => {
    if (typeof v === 'string' || Array.isArray(v)) return v.length;
    if (v !== null && typeof v === 'object') return Object.keys(v).length;
    throw new ExpressionError(`len() expects text, a list or an object but got ${typeName(v)}`, p);
  }),
  arity('abs', 1, 1, ([v], p) => Math.abs(num(v, 'abs', p))),
  arity('min', 1, 64, (args, p) => Math.min(...(args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v) => num(v, 'min', p)))),
  arity('max', 1, 64, (args, p) => Math.max(...(args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v) => num(v, 'max', p)))),
  arity('round', 1, 2, ([v, d], p) => {
    const f = 10 ** (d === undefined ? 0 : num(d, 'round', p));
    return Math.round(num(v, 'round', p) * f) / f;
  }),
  arity('number', 1, 1, ([v], p) => {
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    const n = typeof v === 'string' ? numericText(v) : null;
    if (n === null) throw new ExpressionError(`number() cannot read ${JSON.stringify(toText(v)).slice(0, 80)} as a number`, p);
    return n;
  }),
  arity('str', 1, 1, ([v]) => toText(v)),
  arity('json', 1, 1, ([v], p) => {
    try {
      return JSON.parse(str(v, 'json', p)) as unknown;
    } catch (err) {
      if (err instanceof ExpressionError) throw err;
      throw new ExpressionError(`json() could not parse its text: ${(err as Error).message}`, p);
    }
  }),
  arity('similarity', 2, 2, ([a, b], p) => {
    const x = str(a, 'similarity', p);
    const y = str(b, 'similarity', p);
    const longest = Math.max(x.length, y.length);
    return longest === 0 ? 1 : 1 - distance(x, y) / longest;
  }),
]);
