import { describe, expect, it } from 'vitest';
import type { CodeRunner } from '../contract.ts';
import { assistant, ctxWith, inputFrom, user } from '../test-support.ts';
import { containsAllImports } from './contains-all-imports.ts';
import { codeBlocksCompile } from './code-blocks-compile.ts';
import { doesCodeCompile } from './does-code-compile.ts';

const compile = codeBlocksCompile.build(codeBlocksCompile.definition);
const wholeCompile = doesCodeCompile.build(doesCodeCompile.definition);
const imports = containsAllImports.build(containsAllImports.definition);
const out = (text: string) => inputFrom([user('write code'), assistant(text)]);

// Python's compile() itself runs in the Python sandbox (test/integration/checks/catalog-definitions.test.ts);
// here a recording runner stands in for it, to test what is sent and how answers are read.
// The TypeScript parser runs in the sandbox's parser processes (shared/engines/code-sandbox); a double answers for it here.
function recordingRunner(answer: (blocks: string[]) => string[]): CodeRunner & { blocks: string[][]; parsed: string[] } {
  const blocks: string[][] = [];
  const parsed: string[] = [];
  return {
    blocks,
    parsed,
    evaluate: (req) => {
      const b = (req.args as { blocks: string[] }).blocks;
      blocks.push(b);
      return Promise.resolve({ ok: true, value: answer(b) });
    },
    syntaxErrors: (req) => {
      parsed.push(`${req.language}: ${req.code}`);
      return Promise.resolve(req.code.includes('f( {') ? { ok: true, errors: ["line 1: ',' expected."] } : { ok: true, errors: [] });
    },
  };
}

describe('does_code_compile (as defined: compile(model_output, \'<string>\', \'exec\'))', () => {
  it('sends the whole output, fences and prose included, to compile() in one piece', async () => {
    const runner = recordingRunner(() => ['SyntaxError: invalid syntax (line 1)']);
    const text = 'Here it is:\n```python\nprint(1)\n```';
    expect(await wholeCompile.run(out(text), ctxWith({ codeRunner: runner }))).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'does not compile: SyntaxError: invalid syntax (line 1)',
    });
    expect(runner.blocks).toEqual([[text]]);
    expect(runner.parsed).toEqual([]);
  });

  it('never uses the TypeScript parser: a ```js block is Python\'s to judge', async () => {
    const runner = recordingRunner(() => ['']);
    expect(await wholeCompile.run(out('x = 1'), ctxWith({ codeRunner: runner }))).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'the output compiles as Python' });
    await wholeCompile.run(out('```js\nconst x = 1;\n```'), ctxWith({ codeRunner: runner }));
    expect(runner.parsed).toEqual([]);
    expect(runner.blocks.at(-1)).toEqual(['```js\nconst x = 1;\n```']);
  });
});

describe('code_blocks_compile (our extension)', () => {
  it('compiles the whole output as Python when it has no fences, so prose goes to compile() too', async () => {
    const runner = recordingRunner(() => ['SyntaxError: invalid syntax (line 1)']);
    expect(await compile.run(out('Your reservation is confirmed.'), ctxWith({ codeRunner: runner }))).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'does not compile: SyntaxError: invalid syntax (line 1)',
    });
    expect(runner.blocks).toEqual([['Your reservation is confirmed.']]);
  });

  it('compiles each fenced block: Python ones in the sandbox, JavaScript/TypeScript ones with the TypeScript parser', async () => {
    const runner = recordingRunner((b) => b.map(() => ''));
    const text = '```python\ndef add(a, b):\n    return a + b\n```\nand\n```ts\nconst x: number = 1;\n```\n```\nprint(1)\n```';
    expect(await compile.run(out(text), ctxWith({ codeRunner: runner }))).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: '3 code block(s) compile (python, typescript, python)' });
    expect(runner.blocks).toEqual([['def add(a, b):\n    return a + b\n', 'print(1)\n']]);
    const broken = await compile.run(out('```js\nfunction f( {\n  return 1;\n```'), ctxWith({ codeRunner: runner }));
    expect(broken).toEqual({ status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: "does not compile: block 1 (javascript): line 1: ',' expected." });
    expect(runner.parsed).toEqual(['typescript: const x: number = 1;\n', 'javascript: function f( {\n  return 1;\n']);
  });

  it('does not parse JavaScript/TypeScript without the sandbox\'s parser, and reports a parser over budget as an error', async () => {
    const pythonOnly: CodeRunner = { evaluate: () => Promise.resolve({ ok: true, value: [] }) };
    expect(await compile.run(out('```ts\nconst x = 1;\n```'), ctxWith({ codeRunner: pythonOnly }))).toEqual({
      status: 'not_run', method: 'deterministic', error: 'needs the code sandbox to parse JavaScript/TypeScript blocks, and none is configured',
    });
    const overBudget: CodeRunner = { ...pythonOnly, syntaxErrors: () => Promise.resolve({ ok: false, error: 'the parser gave up after 2000 ms' }) };
    expect(await compile.run(out('```ts\nconst x = 1;\n```'), ctxWith({ codeRunner: overBudget }))).toEqual({
      status: 'error', method: 'deterministic', error: 'block 1 (typescript) could not be parsed: the parser gave up after 2000 ms',
    });
  });

  it('does not run without the Python sandbox, and reports a sandbox failure as an error', async () => {
    expect(await compile.run(out('x = 1'), ctxWith())).toEqual({ status: 'not_run', method: 'deterministic', error: 'needs the Python sandbox to run compile(), and none is configured' });
    const failing: CodeRunner = { evaluate: () => Promise.resolve({ ok: false, error: 'timed out after 2000 ms' }) };
    expect(await compile.run(out('x = 1'), ctxWith({ codeRunner: failing }))).toEqual({ status: 'error', method: 'deterministic', error: 'the Python sandbox failed: timed out after 2000 ms' });
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

  it('checks every call, bare names included: sqrt(4), defaultdict(list)', async () => {
    expect(await imports.run(out('```python\nprint(sqrt(4))\nd = defaultdict(list)\n```'), ctxWith())).toMatchObject({ passed: false, explanation: 'not imported: sqrt (line 1), defaultdict (line 2)' });
    const ok = '```python\nfrom math import sqrt\nfrom collections import defaultdict as dd\ndef helper(n):\n    return n\nclass Box:\n    pass\nf = lambda v: v\ntry:\n    d = dd(list)\nexcept ValueError as err:\n    print(err)\nif (n := len([helper(i) for i in range(3)])) > 1:\n    print(sqrt(n), Box(), f(1), isinstance(n, int))\n```';
    expect(await imports.run(out(ok), ctxWith())).toMatchObject({ passed: true, explanation: 'every called name is imported, defined or a builtin (imports: sqrt, dd)' });
  });

  it('walks 20,000 nested parentheses without overflowing the stack and refuses more than 100,000 characters of code', async () => {
    const nested = `x = ${'('.repeat(20_000)}f(1)${')'.repeat(20_000)}`;
    expect(await imports.run(out(`\`\`\`python\n${nested}\n\`\`\``), ctxWith())).toMatchObject({ passed: false, explanation: 'not imported: f (line 1)' });
    const calls = Array.from({ length: 30_000 }, (_, i) => `f${i}(1)`).join('\n');
    expect(await imports.run(out(`\`\`\`python\n${calls}\n\`\`\``), ctxWith())).toEqual({
      status: 'error', method: 'deterministic', error: `the Python code has ${calls.length + 1} characters, more than the 100000 that are parsed`,
    });
    expect(await imports.run(out('```python\nimport os\nos.path.join("a")\n```'), ctxWith())).toMatchObject({ passed: true });
  });
});
