import { ExpressionError } from './ast.ts';

export type Token =
  | { type: 'num'; value: number; pos: number }
  | { type: 'str'; value: string; pos: number }
  | { type: 'ident'; value: string; pos: number }
  | { type: 'op'; value: string; pos: number }
  | { type: 'eof'; pos: number };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '%', '(', ')', '[', ']', ',', '.', '!', '?', ':'];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
const MAX_LENGTH = 10_000;

export function tokenize(src: string): Token[] {
  if (src.length > MAX_LENGTH) throw new ExpressionError(`expression longer than ${MAX_LENGTH} characters`, 0);
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i))!;
      out.push({ type: 'num', value: Number(m[0]), pos: start });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ type: 'ident', value: m[0], pos: start });
      i += m[0].length;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new ExpressionError('unterminated string', start);
        const c = src[i];
        if (c === ch) break;
        if (c === '\\') {
          const next = src[i + 1];
          if (next === undefined || !(next in ESCAPES)) throw new ExpressionError(`unknown escape \\${next ?? ''}`, i);
          value += ESCAPES[next];
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      i++;
      out.push({ type: 'str', value, pos: start });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected character ${JSON.stringify(ch)}`, start);
    out.push({ type: 'op', value: op, pos: start });
    i += op.length;
  }
  out.push({ type: 'eof', pos: src.length });
  return out;
}
