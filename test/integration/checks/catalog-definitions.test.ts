import { afterAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../../../shared/engines/checks/index.ts';
import { recordToCheckInput } from '../../../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';

// does_code_compile is Python's compile(), run in the real Python sandbox; expected values from CPython 3.11.
const sandbox = createCodeSandbox();
afterAll(() => sandbox.close());
const built = (name: string) => {
  const entry = catalogEntries.find((e) => e.definition.name === name)!;
  return entry.build(entry.definition);
};
const defined = built('does_code_compile');
const check = built('code_blocks_compile');
const ctx = { judge: null, nowMs: () => 0, codeRunner: sandbox };
const outputOf = (text: string) => recordToCheckInput({ id: 'r', messages: [{ role: 'user', content: 'code please' }, { role: 'assistant', content: text }] });

describe('does_code_compile runs compile(model_output, \'<string>\', \'exec\') on the whole output, as defined', () => {
  it('passes code, and fails an answer with prose around a fenced block and a JavaScript block', async () => {
    const cases: Array<[string, boolean, string]> = [
      ['def f(x):\n    return x * 2\n', true, 'the output compiles as Python'],
      ['Here it is:\n```python\nimport math\nprint(math.sqrt(4))\n```', false, 'does not compile: SyntaxError: invalid syntax (line 1)'],
      ['```js\nconst x = 1;\n```', false, 'does not compile: SyntaxError: invalid syntax (line 1)'],
      ['This function returns the sum of two numbers.', false, 'does not compile: SyntaxError: invalid syntax (line 1)'],
    ];
    for (const [text, passed, explanation] of cases) {
      expect(await defined.run(outputOf(text), ctx), text).toEqual({ status: 'ok', value: passed ? 1 : 0, passed, method: 'deterministic', explanation });
    }
  }, 60_000);
});

describe('code_blocks_compile (our extension) compiles each fenced block', () => {
  it('passes code that compiles and fails prose, HTML, an IndentationError and Python 2 print', async () => {
    const cases: Array<[string, boolean, string]> = [
      ['def f(x):\n    return x * 2\n', true, '1 code block(s) compile (python)'],
      ['def f(x):\nreturn x\n', false, "does not compile: IndentationError: expected an indented block after function definition on line 1 (line 2)"],
      ["print 'x'", false, "does not compile: SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)? (line 1)"],
      ['This function returns the sum of two numbers.', false, 'does not compile: SyntaxError: invalid syntax (line 1)'],
      ['<html><body><p>Hi</p></body></html>', false, 'does not compile: SyntaxError: invalid syntax (line 1)'],
      ['Here it is:\n```python\nimport math\nprint(math.sqrt(4))\n```', true, '1 code block(s) compile (python)'],
    ];
    for (const [text, passed, explanation] of cases) {
      expect(await check.run(outputOf(text), ctx), text).toEqual({ status: 'ok', value: passed ? 1 : 0, passed, method: 'deterministic', explanation });
    }
  }, 60_000);
});

describe('code_blocks_compile parses JavaScript/TypeScript blocks from traces off the scorer\'s thread, under a budget', () => {
  const ts = (code: string) => outputOf(`\`\`\`ts\n${code}\n\`\`\``);
  const longArrow = `const total = (${Array.from({ length: 200 }, (_, i) => `p${i}: number`).join(', ')}) => ${Array.from({ length: 200 }, (_, i) => `p${i}`).join(' + ')};`;
  const compiles = { status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: '1 code block(s) compile (typescript)' };

  it('2,000 nested parentheses overflow the parser\'s stack in its own process (an error score), and the next long arrow function compiles', async () => {
    const nested = `const x = ${'('.repeat(2_000)}1${')'.repeat(2_000)};`;
    expect(await check.run(ts(nested), ctx)).toEqual({ status: 'error', method: 'deterministic', error: 'block 1 (typescript) could not be parsed: the parser failed: RangeError: Maximum call stack size exceeded' });
    // A fresh parser process compiles it; the broken one is gone (its start time: npm run bench:budgets).
    expect(await check.run(ts(longArrow), ctx)).toEqual(compiles);
  }, 60_000);

  it('30,000 parameters are refused by the size budget at once, and the next block compiles', async () => {
    const params = `function f(${Array.from({ length: 30_000 }, (_, i) => `a${i}`).join(', ')}) { return 1; }`;
    // Refused before the parser sees it (how fast: npm run bench:budgets).
    expect(await check.run(ts(params), ctx)).toEqual({ status: 'error', method: 'deterministic', error: `block 1 (typescript) could not be parsed: the block has ${params.length + 1} characters, more than the 100000 the parser is given` });
    expect(await check.run(ts(longArrow), ctx)).toEqual(compiles);
    expect(await check.run(ts('function f( {\n  return 1;\n}'), ctx)).toEqual({ status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: "does not compile: block 1 (typescript): line 2: ':' expected.; line 2: ':' expected.; line 4: ')' expected." });
  }, 60_000);
});
