import { describe, expect, it } from 'vitest';
import { assistant, ctxWith, inputFrom, user } from '../test-support.ts';
import { containsAllImports } from './contains-all-imports.ts';
import { doesCodeCompile } from './does-code-compile.ts';

const compile = doesCodeCompile.build(doesCodeCompile.definition);
const imports = containsAllImports.build(containsAllImports.definition);
const out = (text: string) => inputFrom([user('write code'), assistant(text)]);

describe('does_code_compile', () => {
  it('passes valid Python and TypeScript blocks', async () => {
    const text = '```python\ndef add(a, b):\n    return a + b\n```\nand\n```ts\nconst x: number = 1;\nexport function f(y: string) { return y; }\n```';
    expect(await compile.run(out(text), ctxWith())).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: '2 code block(s) parse (python, typescript)' });
  });

  it('fails broken Python with the line', async () => {
    const res = await compile.run(out('```python\ndef add(a, b:\n    return a + b\n```'), ctxWith());
    expect(res).toMatchObject({ passed: false });
    expect(res.explanation).toMatch(/^syntax errors: block 1 \(python\): line 1: /);
  });

  it('fails broken JavaScript', async () => {
    const res = await compile.run(out('```js\nfunction f( {\n  return 1;\n```'), ctxWith());
    expect(res).toMatchObject({ passed: false });
    expect(res.explanation).toMatch(/^syntax errors: block 1 \(javascript\): line \d+: /);
  });

  it('guesses the language of bare code', async () => {
    expect(await compile.run(out('import os\nprint(os.getcwd())\n'), ctxWith())).toMatchObject({ passed: true, explanation: '1 code block(s) parse (python)' });
  });
});

it('does not run on prose without code', async () => {
  expect(await compile.run(out('Your reservation is confirmed.\nThe total is: $120.'), ctxWith())).toEqual({
    status: 'not_run', method: 'deterministic', error: 'the output has no code block in Python, JavaScript or TypeScript',
  });
});

describe('contains_all_imports', () => {
  it('passes when every called module is imported or defined', async () => {
    const code = '```python\nimport json\nimport numpy as np\nfrom os import path\nclass K:\n    def go(self):\n        return self.run()\nx = K()\nx.go()\nprint(json.dumps(np.zeros(3).tolist()), path.join("a", "b"))\n```';
    expect(await imports.run(out(code), ctxWith())).toMatchObject({ passed: true });
  });

  it('names the modules used without an import', async () => {
    const code = '```python\nimport json\nprint(json.dumps({}))\nnow = datetime.datetime.now()\nos.path.join("a")\n```';
    expect(await imports.run(out(code), ctxWith())).toMatchObject({ passed: false, explanation: 'not imported: datetime (line 3), os (line 4)' });
  });
});
