import { describe, expect, it } from 'vitest';
import { compileExpression, ExpressionError } from './index.ts';

const run = (src: string, vars: Record<string, unknown> = {}): unknown => compileExpression(src, Object.keys(vars)).evaluate(vars);

describe('expressions', () => {
  it('arithmetic and precedence', () => {
    expect(run('1 + 2 * 3 - 4 / 2')).toBe(5);
    expect(run('(1 + 2) * 3 % 4')).toBe(1);
    expect(run('-2 + +3')).toBe(1);
    expect(run('1.5e1')).toBe(15);
  });

  it('comparisons, logic and conditionals', () => {
    expect(run('1 < 2 and 2 <= 2 and not 3 > 4')).toBe(true);
    expect(run('1 == 2 or "a" != "b"')).toBe(true);
    expect(run('x > 1 && !(x > 5) || false', { x: 3 })).toBe(true);
    expect(run('"yes" if x > 1 else "no"', { x: 0 })).toBe('no');
    expect(run('x > 1 ? "big" : "small"', { x: 2 })).toBe('big');
  });

  it('string functions, membership and members', () => {
    const vars = { actual: '  The answer is Paris. ', expected: 'paris', input: { city: 'Paris', list: [1, 2] } };
    expect(run('contains(lower(actual), expected)', vars)).toBe(true);
    expect(run('expected in lower(strip(actual))', vars)).toBe(true);
    expect(run('"rome" not in lower(actual)', vars)).toBe(true);
    expect(run('len(strip(actual))', vars)).toBe(20);
    expect(run('input.city == "Paris" and input["list"][1] == 2 and len(input.list) == 2', vars)).toBe(true);
    expect(run('startswith(strip(actual), "The") and endswith(actual, ". ")', vars)).toBe(true);
    expect(run('abs(-3) + max(1, 4) + min([2, 7]) + round(2.456, 2)', vars)).toBe(11.46);
    expect(run('split("a b  c")', vars)).toEqual(['a', 'b', 'c']);
    expect(run('json(\'{"k": [1]}\').k[0]', vars)).toBe(1);
    expect(run('similarity("abcd", "abed")', vars)).toBe(0.75);
  });

  it('a number equals its own text', () => {
    expect(run('actual == expected', { actual: ' 5\n', expected: 5 })).toBe(true);
    expect(run('actual == expected', { actual: '6', expected: 5 })).toBe(false);
    expect(run('number(actual) + 1', { actual: '41' })).toBe(42);
  });

  it('rejects unknown names and functions before running', () => {
    expect(() => compileExpression('acutal == 1', ['actual'])).toThrow(/unknown name "acutal"/);
    expect(() => compileExpression('eval("1")', [])).toThrow(/unknown function "eval"/);
  });

  it('never reaches the host', () => {
    expect(() => run('input.constructor', { input: {} })).toThrow(ExpressionError);
    expect(() => run('input["__proto__"]', { input: {} })).toThrow(/no field/);
    expect(() => run('actual.length', { actual: 'x' })).toThrow(/cannot read field/);
  });

  it('syntax errors carry the column', () => {
    try {
      compileExpression('1 + * 2', []);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ExpressionError);
      expect((err as ExpressionError).pos).toBe(4);
    }
    expect(() => compileExpression('"open', [])).toThrow(/unterminated string/);
    expect(() => compileExpression('1 2', [])).toThrow(/unexpected "2"|unexpected/);
    expect(() => compileExpression('('.repeat(100) + '1' + ')'.repeat(100), [])).toThrow(/nested too deeply/);
  });

  it('runtime errors', () => {
    expect(() => run('1 / x', { x: 0 })).toThrow(/division by zero/);
    expect(() => run('lower(x)', { x: 5 })).toThrow(/lower\(\) expects text but got a number/);
    expect(() => run('input.missing', { input: {} })).toThrow(/no field "missing"/);
    expect(() => run('number(actual)', { actual: 'five' })).toThrow(/cannot read "five" as a number/);
  });
});
