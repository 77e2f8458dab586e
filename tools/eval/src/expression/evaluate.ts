import type { Expr } from './ast.ts';
import { ExpressionError } from './ast.ts';
import { contains, FUNCTIONS, looseEquals, typeName } from './functions.ts';

const FORBIDDEN_FIELDS = new Set(['__proto__', 'constructor', 'prototype']);

/** Python-like truthiness: empty text, empty lists, 0 and null are false. */
export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

/**
 * Evaluates a parsed expression. Only the given variables and the built-in functions are
 * reachable: no host globals, no prototype fields, no loops, so every evaluation terminates.
 */
export function evaluateExpression(expr: Expr, vars: Readonly<Record<string, unknown>>): unknown {
  const ev = (e: Expr): unknown => {
    switch (e.kind) {
      case 'literal':
        return e.value;
      case 'list':
        return e.items.map(ev);
      case 'name':
        if (!Object.hasOwn(vars, e.name)) throw new ExpressionError(`unknown name "${e.name}"`, e.pos);
        return vars[e.name] ?? null;
      case 'member':
        return member(ev(e.object), ev(e.property), e.pos);
      case 'call': {
        const fn = FUNCTIONS.get(e.callee);
        if (!fn) throw new ExpressionError(`unknown function "${e.callee}"`, e.pos);
        return fn(e.args.map(ev), e.pos);
      }
      case 'unary': {
        const v = ev(e.operand);
        if (e.op === 'not') return !truthy(v);
        if (typeof v !== 'number') throw new ExpressionError(`unary ${e.op} expects a number but got ${typeName(v)}`, e.pos);
        return e.op === '-' ? -v : v;
      }
      case 'logical': {
        const left = ev(e.left);
        if (e.op === 'and') return truthy(left) ? ev(e.right) : left;
        return truthy(left) ? left : ev(e.right);
      }
      case 'conditional':
        return truthy(ev(e.test)) ? ev(e.then) : ev(e.otherwise);
      case 'binary':
        return binary(e.op, ev(e.left), ev(e.right), e.pos);
    }
  };
  return ev(expr);
}

function member(obj: unknown, key: unknown, pos: number): unknown {
  if (Array.isArray(obj)) {
    if (typeof key !== 'number' || !Number.isInteger(key)) throw new ExpressionError(`list index must be a whole number, got ${typeName(key)}`, pos);
    const idx = key < 0 ? obj.length + key : key;
    if (idx < 0 || idx >= obj.length) throw new ExpressionError(`list index ${key} out of range (length ${obj.length})`, pos);
    return obj[idx] as unknown;
  }
  if (typeof obj === 'string' && typeof key === 'number' && Number.isInteger(key)) {
    const idx = key < 0 ? obj.length + key : key;
    if (idx < 0 || idx >= obj.length) throw new ExpressionError(`text index ${key} out of range (length ${obj.length})`, pos);
    return obj[idx];
  }
  if (obj === null || typeof obj !== 'object') throw new ExpressionError(`cannot read field ${JSON.stringify(key)} of ${typeName(obj)}`, pos);
  if (typeof key !== 'string' || FORBIDDEN_FIELDS.has(key) || !Object.hasOwn(obj, key)) {
    throw new ExpressionError(`no field ${JSON.stringify(key)}`, pos);
  }
  return (obj as Record<string, unknown>)[key] ?? null;
}

function binary(op: string, a: unknown, b: unknown, pos: number): unknown {
  switch (op) {
    case '==':
      return looseEquals(a, b);
    case '!=':
      return !looseEquals(a, b);
    case 'in':
      return contains(b, a, pos);
    case 'not in':
      return !contains(b, a, pos);
    case '+':
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      if (typeof a === 'string' && typeof b === 'string') return a + b;
      if (Array.isArray(a) && Array.isArray(b)) return [...(a as unknown[]), ...(b as unknown[])];
      throw new ExpressionError(`cannot add ${typeName(a)} and ${typeName(b)}`, pos);
  }
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    const bothNum = typeof a === 'number' && typeof b === 'number';
    const bothStr = typeof a === 'string' && typeof b === 'string';
    if (!bothNum && !bothStr) throw new ExpressionError(`cannot compare ${typeName(a)} with ${typeName(b)}`, pos);
    const x = a;
    const y = b;
    return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
  }
  if (typeof a !== 'number' || typeof b !== 'number') throw new ExpressionError(`"${op}" expects numbers but got ${typeName(a)} and ${typeName(b)}`, pos);
  if ((op === '/' || op === '%') && b === 0) throw new ExpressionError('division by zero', pos);
  if (op === '-') return a - b;
  if (op === '*') return a * b;
  if (op === '/') return a / b;
  return a % b;
}
