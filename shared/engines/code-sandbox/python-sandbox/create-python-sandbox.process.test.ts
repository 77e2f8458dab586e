import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPythonSandbox } from './create-python-sandbox.ts';

// Interpreters take 2–5 s to start on a shared 2-core machine; the kill-and-restart cases pay that again.
const START_BOUND_MS = 60_000;
const sandbox = createPythonSandbox({ timeoutMs: 1_500, memoryMb: 256 });
afterAll(() => sandbox.close());

const example = (name: string): string => readFileSync(resolve(import.meta.dirname, '../../../../examples/checks', name), 'utf8');
const run = (source: string, args: Record<string, unknown> = {}) => sandbox.evaluate({ language: 'python', source, args });

describe('documented Okareo check files, run unchanged (expected values computed with CPython 3.11)', () => {
  it('compression_ratio.py: len(model_output) / len(scenario_input)', async () => {
    const src = example('compression_ratio.py');
    const cases: Array<[string, string, number]> = [
      ['A short summary.', 'A much longer original text that needed summarizing, with details.', 0.24242424242424243],
      ['naïve café ☕', 'abc', 4.0],
      ['x'.repeat(250), 'y'.repeat(1000), 0.25],
    ];
    for (const [model_output, scenario_input, expected] of cases) {
      expect(await run(src, { model_output, scenario_input, scenario_result: null })).toEqual({ ok: true, value: expected });
    }
  }, START_BOUND_MS);

  it('does_code_compile.py: Python compile() succeeds', async () => {
    const src = example('does_code_compile.py');
    const cases: Array<[string, boolean]> = [
      ['def f(x):\n    return x * 2\n', true],
      ['def f(x):\nreturn x\n', false],
      ["print 'x'", false],
      ['This function returns the sum of two numbers.', false],
      ['<html><body><p>Hi</p></body></html>', false],
      ['import math\nprint(math.sqrt(4))', true],
      ['', true],
      ['x = (1,\n', false],
    ];
    for (const [model_output, expected] of cases) expect(await run(src, { model_output, scenario_input: null, scenario_result: null })).toEqual({ ok: true, value: expected });
  }, START_BOUND_MS);

  it('passes parameters by name, in any order and subset; a bare evaluate and an instance method work too', async () => {
    const args = { model_output: 'out', scenario_input: 'in', scenario_result: 'res' };
    expect(await run('from okareo.checks import CodeBasedCheck\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(scenario_result, model_output):\n        return scenario_result + model_output\n', args)).toEqual({ ok: true, value: 'resout' });
    expect(await run('def evaluate(model_output, **rest):\n    return len(rest)\n', args)).toEqual({ ok: true, value: 2 });
    // A check written for the tracecheck Python client imports its classes from tracecheck.checks.
    expect(await run('from tracecheck.checks import CodeBasedCheck\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> int:\n        return len(model_output.split())\n', args)).toEqual({ ok: true, value: 1 });
    expect(await run('from okareo.checks import BaseCheck\nclass Mine(BaseCheck):\n    def evaluate(self, model_output):\n        return model_output == "out"\n', args)).toEqual({ ok: true, value: true });
    expect(await run('def evaluate(model_output, reference):\n    return True\n', args)).toEqual({
      ok: false, error: "evaluate threw: TypeError: evaluate asks for 'reference', which checks do not provide (available: model_output, scenario_input, scenario_result)",
    });
  });

  it('reports syntax errors and exceptions with their line', async () => {
    expect(await run("def evaluate(model_output):\n    print 'x'\n")).toEqual({ ok: false, error: "does not compile: SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)? (line 2)" });
    expect(await run('def evaluate(model_output):\n    return 1 / 0\n', { model_output: 'x' })).toEqual({ ok: false, error: 'evaluate threw: ZeroDivisionError: division by zero (line 2)' });
    expect(await run('x = 1\n')).toEqual({ ok: false, error: 'loading the check failed: TypeError: the file defines neither class Check(CodeBasedCheck) with evaluate nor a function evaluate' });
  });

  it('runs snippets: variables in, named results out', async () => {
    expect(await sandbox.runSnippet({ source: 'metric = expected in actual\nresult = metric and len(actual) < 20', vars: { actual: 'Paris!', expected: 'Paris' }, outputs: ['metric', 'result', 'absent'] })).toEqual({
      ok: true, values: { metric: true, result: true },
    });
    expect(await sandbox.runSnippet({ source: 'x = float("nan")\ny = object()', vars: {}, outputs: ['x', 'y'] })).toEqual({ ok: true, values: { x: 'nan', y: { unsupported: 'object' } } });
  });

  it('shares no state between calls: globals, builtins and imported modules start afresh', async () => {
    const src = 'import builtins\nbuiltins.len = lambda x: 42\ncounter = globals().get("counter", 0) + 1\ndef evaluate():\n    return counter\n';
    expect(await run(src)).toEqual({ ok: true, value: 1 });
    expect(await run('def evaluate():\n    return len("ab")\n')).toEqual({ ok: true, value: 2 });
    expect(await run(src)).toEqual({ ok: true, value: 1 });
  });
});

describe('escapes are refused', () => {
  it('sees no host file, environment or process', { timeout: START_BOUND_MS }, async () => {
    expect(await run("def evaluate():\n    return open('/etc/passwd').read()\n")).toEqual({ ok: false, error: "evaluate threw: FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd' (line 2)" });
    // The file system is Pyodide's in-memory one, not the host's.
    expect(await run("import os\ndef evaluate():\n    return sorted(os.listdir('/'))\n")).toEqual({ ok: true, value: ['dev', 'home', 'lib', 'proc', 'tmp'] });
    expect(await run("import os\ndef evaluate():\n    return os.path.exists('/work') or os.path.exists('/root') or 'TRACECHECK' in str(os.environ) or 'OPENAI' in str(os.environ)\n")).toEqual({ ok: true, value: false });
    // Emscripten would start a process through Node: the interpreter's call out is refused (and the permission model would refuse the process).
    expect(await sandbox.evaluate({ language: 'python', source: "import os\ndef evaluate():\n    return os.system('id')\n", args: {}, timeoutMs: START_BOUND_MS })).toEqual({
      ok: false, error: 'refused by the sandbox: the host function _emscripten_system is not available to checks',
    });
  });

  it('refuses the JavaScript bridge and the process and network modules', { timeout: START_BOUND_MS }, async () => {
    // Python imports a dotted name's parent first: `pyodide.ffi` is refused as `pyodide`.
    for (const [mod, refused] of [['js', 'js'], ['pyodide_js', 'pyodide_js'], ['pyodide.ffi', 'pyodide'], ['subprocess', 'subprocess'], ['socket', 'socket'], ['ctypes', 'ctypes'], ['multiprocessing', 'multiprocessing'], ['urllib.request', 'urllib.request']]) {
      expect(await run(`import ${mod}\ndef evaluate():\n    return True\n`)).toEqual({
        ok: false, error: `loading the check failed: ImportError: import of '${refused}' is not allowed in a tracecheck Python check (no host, network or process access) (line 1)`,
      });
    }
    // With the refusing finder removed, the bridge modules are gone all the same.
    expect(await run('import sys\nsys.meta_path.pop(0)\nimport js\n')).toEqual({ ok: false, error: "loading the check failed: ModuleNotFoundError: No module named 'js' (line 3)" });
    expect(await run("import sys\ndef evaluate():\n    return [m for m in sys.modules if 'pyodide' in m or m == 'js']\n")).toEqual({ ok: true, value: [] });
  });

  it('stops an infinite loop at the deadline and serves the next call from a fresh interpreter', async () => {
    expect(await run('def evaluate():\n    while True:\n        pass\n')).toEqual({ ok: false, error: 'timed out after 1500 ms' });
    expect(await sandbox.evaluate({ language: 'python', source: 'def evaluate():\n    return 7\n', args: {}, timeoutMs: START_BOUND_MS })).toEqual({ ok: true, value: 7 });
  }, START_BOUND_MS * 2);

  it('refuses an allocation past the memory cap', async () => {
    expect(await sandbox.evaluate({ language: 'python', source: 'def evaluate():\n    return len(bytearray(2 * 10**9))\n', args: {}, timeoutMs: START_BOUND_MS })).toEqual({ ok: false, error: 'ran out of memory (limit 256 MB)' });
    expect(await sandbox.evaluate({ language: 'python', source: "def evaluate():\n    a = []\n    while True:\n        a.append('x' * 10**6)\n", args: {}, timeoutMs: START_BOUND_MS })).toEqual({
      ok: false, error: 'ran out of memory (limit 256 MB)',
    });
    expect(await sandbox.evaluate({ language: 'python', source: 'def evaluate():\n    return 8\n', args: {}, timeoutMs: START_BOUND_MS })).toEqual({ ok: true, value: 8 });
  }, START_BOUND_MS * 3);
});

describe.runIf(process.platform === 'linux')('the OS data limit of the interpreter processes', () => {
  // The interpreter's own cap (2 GB here) is above the process's OS limit, so the OS limit is what refuses.
  const limited = createPythonSandbox({ timeoutMs: 10_000, memoryMb: 2048, processMemoryMb: 700, poolSize: 2 });
  afterAll(() => limited.close());

  it('applies RLIMIT_DATA to each interpreter, refuses an allocation past it, and serves the next call from a fresh one', async () => {
    expect(await limited.evaluate({ language: 'python', source: 'def evaluate():\n    return 1\n', args: {} })).toEqual({ ok: true, value: 1 });
    const [pid] = limited.pids();
    const dataLine = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max data size'));
    expect(dataLine?.split(/\s{2,}/).slice(0, 3)).toEqual(['Max data size', String(700 * 1024 * 1024), String(700 * 1024 * 1024)]);
    expect(await limited.evaluate({ language: 'python', source: 'def evaluate():\n    return len(bytearray(1200 * 10**6))\n', args: {} })).toEqual({
      ok: false, error: 'ran out of memory (limit 700 MB for the process)',
    });
    expect(await limited.evaluate({ language: 'python', source: 'def evaluate():\n    return 9\n', args: {} })).toEqual({ ok: true, value: 9 });
  }, START_BOUND_MS * 2);
});
