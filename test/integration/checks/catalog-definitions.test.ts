import { afterAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../../../shared/checks/index.ts';
import { recordToCheckInput } from '../../../shared/checks/index.ts';
import { createCodeSandbox } from '../../../shared/code-sandbox/index.ts';

// does_code_compile is Python's compile(), run in the real Python sandbox; expected values from CPython 3.11.
const sandbox = createCodeSandbox();
afterAll(() => sandbox.close());
const entry = catalogEntries.find((e) => e.definition.name === 'does_code_compile')!;
const check = entry.build(entry.definition);
const ctx = { judge: null, nowMs: () => 0, codeRunner: sandbox };
const outputOf = (text: string) => recordToCheckInput({ id: 'r', messages: [{ role: 'user', content: 'code please' }, { role: 'assistant', content: text }] });

describe('does_code_compile runs compile() as defined', () => {
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
