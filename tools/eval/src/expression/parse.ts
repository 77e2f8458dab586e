import type { BinaryOp, Expr } from './ast.ts';
import { ExpressionError } from './ast.ts';
import type { Token } from './tokenize.ts';
import { tokenize } from './tokenize.ts';

const KEYWORD_LITERALS: Record<string, string | number | boolean | null> = {
  true: true,
  false: false,
  True: true,
  False: false,
  null: null,
  None: null,
};
const MAX_DEPTH = 64;

/**
 * Parses a user expression. Grammar, loosest first:
 *   cond ? a : b  |  a if cond else b;  or / ||;  and / &&;  not / !;
 *   == != < <= > >= in, not in;  + -;  * / %;  unary - +;  calls f(x), members a.b, a[i];
 *   numbers, 'strings', "strings", true/false/null, [lists], names.
 */
export function parseExpression(src: string): Expr {
  const tokens = tokenize(src);
  let i = 0;
  let depth = 0;
  const peek = (): Token => tokens[i];
  const next = (): Token => tokens[i++];
  const isOp = (value: string): boolean => {
    const t = peek();
    return t.type === 'op' && t.value === value;
  };
  const isWord = (value: string): boolean => {
    const t = peek();
    return t.type === 'ident' && t.value === value;
  };
  const expectOp = (value: string): void => {
    const t = next();
    if (t.type !== 'op' || t.value !== value) throw new ExpressionError(`expected "${value}" but found ${describe(t)}`, t.pos);
  };
  const nested = <T>(fn: () => T): T => {
    if (++depth > MAX_DEPTH) throw new ExpressionError('expression nested too deeply', peek().pos);
    try {
      return fn();
    } finally {
      depth--;
    }
  };

  const conditional = (): Expr =>
    nested(() => {
      const test = or();
      if (isOp('?')) {
        const pos = next().pos;
        const then = conditional();
        expectOp(':');
        const otherwise = conditional();
        return { kind: 'conditional', test, then, otherwise, pos };
      }
      if (isWord('if')) {
        const pos = next().pos;
        const cond = or();
        if (!isWord('else')) throw new ExpressionError(`expected "else" but found ${describe(peek())}`, peek().pos);
        next();
        const otherwise = conditional();
        return { kind: 'conditional', test: cond, then: test, otherwise, pos };
      }
      return test;
    });
  const or = (): Expr => {
    let left = and();
    while (isWord('or') || isOp('||')) {
      const pos = next().pos;
      left = { kind: 'logical', op: 'or', left, right: and(), pos };
    }
    return left;
  };
  const and = (): Expr => {
    let left = not();
    while (isWord('and') || isOp('&&')) {
      const pos = next().pos;
      left = { kind: 'logical', op: 'and', left, right: not(), pos };
    }
    return left;
  };
  const not = (): Expr => {
    if (isWord('not') || isOp('!')) {
      const pos = next().pos;
      return nested(() => ({ kind: 'unary', op: 'not', operand: not(), pos }));
    }
    return comparison();
  };
  const comparison = (): Expr => {
    let left = additive();
    for (;;) {
      const t = peek();
      let op: BinaryOp | null = null;
      if (t.type === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.value)) op = t.value as BinaryOp;
      else if (isWord('in')) op = 'in';
      else if (isWord('not') && tokens[i + 1]?.type === 'ident' && (tokens[i + 1] as { value: string }).value === 'in') {
        i++;
        op = 'not in';
      }
      if (!op) return left;
      next();
      left = { kind: 'binary', op, left, right: additive(), pos: t.pos };
    }
  };
  const additive = (): Expr => {
    let left = multiplicative();
    while (isOp('+') || isOp('-')) {
      const t = next() as { value: BinaryOp; pos: number };
      left = { kind: 'binary', op: t.value, left, right: multiplicative(), pos: t.pos };
    }
    return left;
  };
  const multiplicative = (): Expr => {
    let left = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const t = next() as { value: BinaryOp; pos: number };
      left = { kind: 'binary', op: t.value, left, right: unary(), pos: t.pos };
    }
    return left;
  };
  const unary = (): Expr => {
    if (isOp('-') || isOp('+')) {
      const t = next() as { value: '-' | '+'; pos: number };
      return nested(() => ({ kind: 'unary', op: t.value, operand: unary(), pos: t.pos }));
    }
    return postfix();
  };
  const postfix = (): Expr => {
    let expr = primary();
    for (;;) {
      if (isOp('.')) {
        next();
        const t = next();
        if (t.type !== 'ident') throw new ExpressionError(`expected a field name after "." but found ${describe(t)}`, t.pos);
        expr = { kind: 'member', object: expr, property: { kind: 'literal', value: t.value, pos: t.pos }, pos: t.pos };
      } else if (isOp('[')) {
        const pos = next().pos;
        const property = nested(conditional);
        expectOp(']');
        expr = { kind: 'member', object: expr, property, pos };
      } else {
        return expr;
      }
    }
  };
  const primary = (): Expr => {
    const t = next();
    switch (t.type) {
      case 'num':
        return { kind: 'literal', value: t.value, pos: t.pos };
      case 'str':
        return { kind: 'literal', value: t.value, pos: t.pos };
      case 'ident': {
        if (t.value in KEYWORD_LITERALS) return { kind: 'literal', value: KEYWORD_LITERALS[t.value]!, pos: t.pos };
        if (['and', 'or', 'not', 'in', 'if', 'else'].includes(t.value)) throw new ExpressionError(`unexpected "${t.value}"`, t.pos);
        if (isOp('(')) {
          next();
          const args: Expr[] = [];
          if (!isOp(')')) {
            do args.push(nested(conditional));
            while (isOp(',') && next());
          }
          expectOp(')');
          return { kind: 'call', callee: t.value, args, pos: t.pos };
        }
        return { kind: 'name', name: t.value, pos: t.pos };
      }
      case 'op':
        if (t.value === '(') {
          const inner = nested(conditional);
          expectOp(')');
          return inner;
        }
        if (t.value === '[') {
          const items: Expr[] = [];
          if (!isOp(']')) {
            do items.push(nested(conditional));
            while (isOp(',') && next());
          }
          expectOp(']');
          return { kind: 'list', items, pos: t.pos };
        }
        throw new ExpressionError(`unexpected "${t.value}"`, t.pos);
      case 'eof':
        throw new ExpressionError('unexpected end of expression', t.pos);
    }
  };

  const expr = conditional();
  const rest = peek();
  if (rest.type !== 'eof') throw new ExpressionError(`unexpected ${describe(rest)} after the expression`, rest.pos);
  return expr;
}

function describe(t: Token): string {
  if (t.type === 'eof') return 'the end of the expression';
  if (t.type === 'str') return `string ${JSON.stringify(t.value)}`;
  return `"${String(t.value)}"`;
}
