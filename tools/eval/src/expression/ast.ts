import { PermanentError } from '../../../../shared/runtime/errors/index.ts';

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null; pos: number }
  | { kind: 'list'; items: Expr[]; pos: number }
  | { kind: 'name'; name: string; pos: number }
  | { kind: 'member'; object: Expr; property: Expr; pos: number }
  | { kind: 'call'; callee: string; args: Expr[]; pos: number }
  | { kind: 'unary'; op: '-' | '+' | 'not'; operand: Expr; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { kind: 'logical'; op: 'and' | 'or'; left: Expr; right: Expr; pos: number }
  | { kind: 'conditional'; test: Expr; then: Expr; otherwise: Expr; pos: number };

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in';

/** A user expression that cannot be parsed or evaluated; `pos` is the 0-based column. */
export class ExpressionError extends PermanentError {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}
