import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import {
  joinSql,
  quoteArray,
  quoteBoolean,
  quoteIdentifier,
  quoteInteger,
  quoteNumber,
  quoteString,
  quoteValue,
  sql,
  sqlIdentifier,
  toWellFormed,
} from './sql-quote.ts';

/**
 * Reads one ClickHouse string literal the way the server's lexer does: a quote ends it only when
 * not escaped. Returns the decoded value and what follows the literal.
 */
function readLiteral(text: string): { value: string; rest: string } {
  expect(text[0]).toBe("'");
  let value = '';
  let i = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      const n = text[i + 1];
      if (n === 'x') {
        value += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
        i += 4;
      } else {
        value += n;
        i += 2;
      }
    } else if (c === "'") {
      return { value, rest: text.slice(i + 1) };
    } else {
      value += c;
      i += 1;
    }
  }
  throw new Error('unterminated literal');
}

const HOSTILE = [
  '',
  "it's",
  "'",
  "''",
  "\\'",
  "'; DROP TABLE scores; --",
  "x' OR '1'='1",
  'back\\slash',
  'trailing backslash\\',
  '\\',
  '\\\\',
  'line\nbreak\r\n\ttab',
  'nul\u0000byte',
  '\u0001\u001f\u007f',
  'ünïcødé 日本語 🎉 \u2028\u2029',
  '`backtick` "double"',
  '{p:String} $1 ? :name',
  '/* comment */ -- comment',
];

describe('quoteString', () => {
  it.each(HOSTILE)('decodes back to the same string and ends at its own quote: %j', (s) => {
    const quoted = quoteString(s);
    const { value, rest } = readLiteral(quoted);
    expect(value).toBe(s);
    expect(rest).toBe('');
  });

  it('escapes backslash, quote and control characters exactly', () => {
    expect(quoteString("a'b")).toBe("'a\\'b'");
    expect(quoteString('a\\b')).toBe("'a\\\\b'");
    expect(quoteString('end\\')).toBe("'end\\\\'");
    expect(quoteString('\n\t\r\u0000\u007f')).toBe("'\\x0a\\x09\\x0d\\x00\\x7f'");
    expect(quoteString('日本🎉')).toBe("'日本🎉'");
  });

  it('contains no raw control characters and no unescaped quote', () => {
    for (const s of HOSTILE) {
      const inner = quoteString(s).slice(1, -1);
      expect([...inner].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')).toBe(false);
      expect(inner.replace(/\\./g, '')).not.toContain("'");
    }
  });

  it('replaces lone surrogates with U+FFFD and keeps pairs', () => {
    expect(quoteString('a\uD800b')).toBe("'a\uFFFDb'");
    expect(quoteString('a\uDC00')).toBe("'a\uFFFD'");
    expect(quoteString('\uDC00\uD800')).toBe("'\uFFFD\uFFFD'");
    expect(quoteString('\uD83C\uDF89')).toBe("'\uD83C\uDF89'");
    expect(toWellFormed('x\uD800')).toBe('x\uFFFD');
  });

  it('refuses non-strings', () => {
    expect(() => quoteString(42 as unknown as string)).toThrow(PermanentError);
  });
});

describe('numbers, integers, booleans', () => {
  it('quotes finite numbers and parenthesises negatives', () => {
    expect(quoteNumber(0)).toBe('0');
    expect(quoteNumber(-0)).toBe('0');
    expect(quoteNumber(0.1)).toBe('0.1');
    expect(quoteNumber(-5)).toBe('(-5)');
    expect(quoteNumber(1e21)).toBe('1e+21');
    expect(quoteNumber(5e-7)).toBe('5e-7');
  });

  it('refuses NaN, Infinity and non-numbers', () => {
    expect(() => quoteNumber(Number.NaN)).toThrow(PermanentError);
    expect(() => quoteNumber(Number.POSITIVE_INFINITY)).toThrow(PermanentError);
    expect(() => quoteNumber(Number.NEGATIVE_INFINITY)).toThrow(PermanentError);
    expect(() => quoteNumber('1; DROP' as unknown as number)).toThrow(PermanentError);
  });

  it('quotes safe integers and bigints only', () => {
    expect(quoteInteger(1_700_000_000_000)).toBe('1700000000000');
    expect(quoteInteger(-3)).toBe('(-3)');
    expect(quoteInteger(18446744073709551615n)).toBe('18446744073709551615');
    expect(quoteInteger(-2n)).toBe('(-2)');
    expect(() => quoteInteger(1.5)).toThrow(PermanentError);
    expect(() => quoteInteger(2 ** 53)).toThrow(PermanentError);
  });

  it('quotes booleans as UInt8', () => {
    expect(quoteBoolean(true)).toBe('1');
    expect(quoteBoolean(false)).toBe('0');
    expect(() => quoteBoolean('true' as unknown as boolean)).toThrow(PermanentError);
  });
});

describe('arrays and values', () => {
  it('quotes each element', () => {
    expect(quoteArray(["a'b", 'c\\'])).toBe("['a\\'b', 'c\\\\']");
    expect(quoteArray([1, -2, null, true])).toBe('[1, (-2), NULL, 1]');
    expect(quoteArray([])).toBe('[]');
    expect(quoteArray([['x'], []])).toBe("[['x'], []]");
  });

  it('refuses values it cannot quote', () => {
    expect(() => quoteValue({ sqlText: '1; DROP TABLE x' })).toThrow(PermanentError);
    expect(() => quoteValue(undefined as never)).toThrow(PermanentError);
    expect(() => quoteArray('abc' as never)).toThrow(PermanentError);
  });
});

describe('identifiers', () => {
  it('accepts plain identifiers', () => {
    expect(quoteIdentifier('tracecheck')).toBe('tracecheck');
    expect(quoteIdentifier('_t1_X')).toBe('_t1_X');
  });

  it.each(['', '1abc', 'a-b', 'a b', 'a.b', 'a`b', "a'b", 'a;DROP', 'ü', 'a\n', 'a\u0000'])('refuses %j', (name) => {
    expect(() => quoteIdentifier(name)).toThrow(PermanentError);
  });
});

describe('sql template', () => {
  it('quotes interpolations and passes fragments and identifiers through', () => {
    const where = joinSql([sql`a = ${"x'"}`, sql`b < ${5}`], ' AND ');
    const q = sql`SELECT * FROM ${sqlIdentifier('db')}.t WHERE ${where} AND c IN ${['p', 'q']}`;
    expect(q.sqlText).toBe("SELECT * FROM db.t WHERE a = 'x\\'' AND b < 5 AND c IN ['p', 'q']");
  });

  it('does not trust look-alike fragments', () => {
    expect(() => joinSql([{ sqlText: 'evil' }], ',')).toThrow(PermanentError);
    const q = sql`x = ${'{"sqlText":"1"}'}`;
    expect(q.sqlText).toBe('x = \'{"sqlText":"1"}\'');
  });
});
