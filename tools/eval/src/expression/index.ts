import type { Expr } from './ast.ts';
import { ExpressionError } from './ast.ts';
import { evaluateExpression } from './evaluate.ts';
import { FUNCTIONS } from './functions.ts';
import { parseExpression } from './parse.ts';

export { ExpressionError } from './ast.ts';
;
export {  truthy } from './evaluate.ts';
export { looseEquals, toText } from './functions.ts';
;

export interface CompiledExpression {
  source: string;
  evaluate(vars: Readonly<Record<string, unknown>>): unknown;
}

/**
 * Parses `source` and checks, before anything runs, that it names only `allowedNames` and known
 * functions. Throws ExpressionError.
 */
export function compileExpression(source: string, allowedNames: readonly string[]): CompiledExpression {
  const ast = parseExpression(source);
  checkNames(ast, new Set(allowedNames));
  return { source, evaluate: (vars) => evaluateExpression(ast, vars) };
}

function checkNames(e: Expr, allowed: ReadonlySet<string>): void {
  switch (e.kind) {
    case 'name':
      if (!allowed.has(e.name)) throw new ExpressionError(`unknown name "${e.name}" (known: ${[...allowed].join(', ')})`, e.pos);
      return;
    case 'call':
      if (!FUNCTIONS.has(e.callee)) throw new ExpressionError(`unknown function "${e.callee}" (known: ${[...FUNCTIONS.keys()].join(', ')})`, e.pos);
      e.args.forEach((a) => checkNames(a, allowed));
      return;
    case 'list':
      e.items.forEach((a) => checkNames(a, allowed));
      return;
    case 'member':
      checkNames(e.object, allowed);
      checkNames(e.property, allowed);
      return;
    case 'unary':
      checkNames(e.operand, allowed);
      return;
    case 'binary':
    case 'logical':
      checkNames(e.left, allowed);
      checkNames(e.right, allowed);
      return;
    case 'conditional':
      checkNames(e.test, allowed);
      checkNames(e.then, allowed);
      checkNames(e.otherwise, allowed);
      return;
    case 'literal':
      return;
  }
}
