import { describe, expect, it } from 'vitest';
import { createUserPython } from './create-user-python.ts';

const py = createUserPython({ python: 'python3', timeoutMs: 60_000 });
const BOUND_MS = 60_000;

describe('suite code in the user\'s Python', () => {
  it('reads variables as globals and hands back the named outputs; what it prints is not the answer', async () => {
    const res = await py.runSnippet({ source: 'print("noise")\nimport sys\nresult = actual == str(expected)\nmetric = sys.version_info[0]', vars: { actual: '5', expected: 5 }, outputs: ['metric', 'result'] });
    expect(res).toEqual({ ok: true, values: { metric: 3, result: true } });
  }, BOUND_MS);

  it('fills {name} as data: the text inside a string literal, a Python literal outside one', async () => {
    const message = 'it\'s "quoted"\\n\n{a}\'); import os; os._exit(9) #';
    const res = await py.runSnippet({
      source: 'output = "You said: {message}"\nn = {count} + 1\nraw = r\'{message}\'\nf = f"{len(message)}"\nb = b"{message}"\nother = "{unknown}"',
      vars: { message, count: 41 },
      outputs: ['output', 'n', 'raw', 'f', 'b', 'other'],
      substitute: { message, count: 41 },
    });
    expect(res).toEqual({ ok: true, values: { output: `You said: ${message}`, n: 42, raw: message, f: String(message.length), b: "b'{message}'", other: '{unknown}' } });
  }, BOUND_MS);

  it('names a missing module and the interpreter; a missing interpreter names the setting', async () => {
    const res = await py.runSnippet({ source: 'import tracecheck_no_such_module\nresult = True', vars: {}, outputs: ['result'] });
    expect(res.ok).toBe(false);
    expect(!res.ok && res.error).toMatch(/^Python module 'tracecheck_no_such_module' is not installed for \S*python\S* \(No module named 'tracecheck_no_such_module'\); install it there, or choose the interpreter with --python or LLMEVAL_PYTHON$/);
    const none = await createUserPython({ python: '/nonexistent/python3', timeoutMs: 5_000 }).runSnippet({ source: 'result = 1', vars: {}, outputs: ['result'] });
    expect(none).toEqual({ ok: false, error: 'Python interpreter "/nonexistent/python3" not found (set --python PATH or LLMEVAL_PYTHON)' });
  }, BOUND_MS);

  it('reports an exception with its line', async () => {
    const res = await py.runSnippet({ source: 'x = 1\nresult = 1 / 0', vars: {}, outputs: ['result'] });
    expect(res).toEqual({ ok: false, error: 'ZeroDivisionError: division by zero (line 2)' });
  }, BOUND_MS);
});
