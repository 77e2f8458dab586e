import { afterAll, describe, expect, it } from 'vitest';
import { createPythonSandbox, pyodideDir } from './create-python-sandbox.ts';

// The attacks of issue 35: one project's check plants modules named like stdlib modules where a later
// import finds them (a folder it made under /proc and moved into, and every other place it might
// write), and the next checks, of another project and of its own, import those modules. One
// interpreter per project and two in all, as a small deployment runs it.
const START_BOUND_MS = 120_000;
const sandbox = createPythonSandbox({ timeoutMs: 2_000, poolSize: 1, totalPoolSize: 2 });
afterAll(() => sandbox.close());
const run = (project: string, source: string, args: Record<string, unknown> = {}) => sandbox.evaluate({ language: 'python', source, args, project, timeoutMs: START_BOUND_MS });

// Imported instead of the stdlib module, it would read the victim's request (its source and its whole
// unit) and send it back through the victim's own error text.
const FORGED = "raise ValueError('forged: ' + open('/tmp/.tracecheck/request.json').read()[:300])\n";
const MODULES = ['difflib', 'datetime', 'hashlib', 'csv', 'statistics', 'decimal', 'uuid'];

// Every write the attacker tries; it answers the ones that succeeded.
const ATTACKER = `import os, sys, zipfile, io, importlib.util
FORGED = ${JSON.stringify(FORGED)}
MODULES = ${JSON.stringify(MODULES)}
done = []
def attempt(label, fn):
    try:
        fn()
        done.append(label)
    except OSError:
        pass
def plant(folder):
    for m in MODULES:
        with open(os.path.join(folder, m + '.py'), 'w') as f:
            f.write(FORGED)
def proc_folder():
    os.makedirs('/proc/x', exist_ok=True)
    os.chdir('/proc/x')
    plant('.')
def zip_over_stdlib():
    with open('/lib/python314.zip', 'r+b') as f:
        f.write(b'PK')
def pyc():
    os.makedirs('/lib/python3.14/site-packages/__pycache__', exist_ok=True)
    with open('/lib/python3.14/site-packages/__pycache__/difflib.cpython-314.pyc', 'wb') as f:
        f.write(importlib.util.MAGIC_NUMBER + bytes(12) + b'x')
def zip_on_path():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr('difflib.py', FORGED)
    with open('/lib/python3.14/site-packages/evil.zip', 'wb') as f:
        f.write(buf.getvalue())
def pth():
    with open('/lib/python3.14/site-packages/evil.pth', 'w') as f:
        f.write('/proc/x\\nimport sys; sys.path.insert(0, "/proc/x")\\n')
def customize():
    for name in ('sitecustomize', 'usercustomize'):
        with open('/lib/python3.14/site-packages/' + name + '.py', 'w') as f:
            f.write('import sys; sys.path.insert(0, "/proc/x")\\n')
def regain():
    os.chmod('/proc', 0o777)
    plant('/proc')
def renamed():
    os.makedirs('/tmp/moved')
    plant('/tmp/moved')
    os.rename('/tmp/moved', '/proc/moved')
def linked():
    os.symlink('/tmp', '/proc/tmp')
def tmp_cwd():
    os.makedirs('/tmp/x', exist_ok=True)
    os.chdir('/tmp/x')
    plant('.')
def evaluate():
    attempt('/proc/x', proc_folder)
    attempt('/proc (chmod)', regain)
    attempt('/home/pyodide', lambda: plant('/home/pyodide'))
    attempt('site-packages', lambda: plant('/lib/python3.14/site-packages'))
    attempt('stdlib folder', lambda: plant('/lib/python3.14'))
    attempt('/lib/python314.zip', zip_over_stdlib)
    attempt('__pycache__', pyc)
    attempt('zip on sys.path', zip_on_path)
    attempt('.pth', pth)
    attempt('sitecustomize', customize)
    attempt('/dev/shm', lambda: plant('/dev/shm'))
    attempt('/dev', lambda: plant('/dev'))
    attempt('/', lambda: plant('/'))
    attempt('rename into /proc', renamed)
    attempt('symlink in /proc', linked)
    attempt('utime', lambda: os.utime('/lib/python314.zip', (0, 0)))
    attempt('/tmp/x (the working folder)', tmp_cwd)
    sys.path.insert(0, '/tmp/x')
    return done
`;

// Uses every planted name; the exact values are CPython's.
const VICTIM = `import difflib, datetime, hashlib, csv, statistics, decimal, uuid, io, os, sys
def evaluate(model_output):
    return [
        difflib.SequenceMatcher(None, model_output, 'abcd').ratio(),
        datetime.date(2024, 2, 29).isoformat(),
        hashlib.sha256(model_output.encode()).hexdigest()[:12],
        next(csv.reader(io.StringIO('a,b'))),
        statistics.mean([1, 2, 3, 6]),
        str(decimal.Decimal('1.10') + decimal.Decimal('2.20')),
        str(uuid.UUID(int=1)),
        os.getcwd(),
        [p for p in sys.path if not p.startswith('/lib/')],
        sorted(os.listdir('/tmp')),
        sorted(os.listdir('/proc')),
    ]
`;
const HONEST = [0.8571428571428571, '2024-02-29', 'ba7816bf8f01', ['a', 'b'], 3, '3.30', '00000000-0000-0000-0000-000000000001', '/home/pyodide', [], ['.tracecheck'], ['self']];

// The attack as measured: a folder under /proc (left out of the after-call comparison), made the working folder ('' on sys.path).
const PROC_ATTACK = `import os
def evaluate():
    os.makedirs('/proc/x', exist_ok=True)
    os.chdir('/proc/x')
    for m in ${JSON.stringify(MODULES)}:
        with open(m + '.py', 'w') as f:
            f.write(${JSON.stringify(FORGED)})
    return True
`;

describe('modules planted in the file system reach no later check', () => {
  it('modules planted in a folder under /proc made the working folder: refused, and the other project\'s checks stay honest', async () => {
    const attack = await run('attacker', PROC_ATTACK);
    expect(await run('victim', VICTIM, { model_output: 'abc' })).toEqual({ ok: true, value: HONEST });
    expect(await run('attacker', VICTIM, { model_output: 'abc' })).toEqual({ ok: true, value: HONEST });
    expect(attack).toEqual({ ok: false, error: "evaluate threw: PermissionError: [Errno 2] Permission denied: '/proc/x' (line 3)" });
  }, START_BOUND_MS * 3);

  it('only /tmp takes the writes, and neither the other project nor the attacker\'s own next check imports what it planted', async () => {
    expect(await run('victim', VICTIM, { model_output: 'abc' })).toEqual({ ok: true, value: HONEST });
    expect(await run('attacker', ATTACKER)).toEqual({ ok: true, value: ['/tmp/x (the working folder)'] });
    expect(await run('victim', VICTIM, { model_output: 'abc' })).toEqual({ ok: true, value: HONEST });
    expect(await run('attacker', VICTIM, { model_output: 'abc' })).toEqual({ ok: true, value: HONEST });
    // One interpreter per project, never the other's.
    const owners = sandbox.processes();
    expect(owners.map((p) => p.owner).sort()).toEqual(['attacker', 'victim']);
    expect(new Set(owners.map((p) => p.pid)).size).toBe(2);
  }, START_BOUND_MS * 3);

  it('what a check leaves in the interpreter (os.environ, builtins, sys.modules, atexit and signal handlers, an open file held by a live object) is gone for its project\'s next check', async () => {
    const leaver = `import atexit, builtins, os, signal, sys, types
fake = types.ModuleType('difflib')
fake.SequenceMatcher = None
def evaluate():
    os.environ['PYTHONPATH'] = '/tmp'
    os.putenv('PYTHONSTARTUP', '/tmp/x.py')
    builtins.len = lambda x: 0
    sys.modules['difflib'] = fake
    builtins.kept = open('/tmp/kept', 'w')
    atexit.register(lambda: builtins.kept.write('x'))
    signal.signal(signal.SIGINT, lambda *a: None)
    return 1
`;
    const reader = `import os, sys, difflib, builtins, signal
def evaluate():
    return [len('abc'), difflib.SequenceMatcher is not None, 'PYTHONPATH' in os.environ, os.path.exists('/tmp/kept'), hasattr(builtins, 'kept'), signal.getsignal(signal.SIGINT) is signal.default_int_handler]
`;
    expect(await run('attacker', leaver)).toEqual({ ok: true, value: 1 });
    expect(await run('attacker', reader)).toEqual({ ok: true, value: [3, true, false, false, false, true] });
  }, START_BOUND_MS * 2);
});

describe('the host stays out of sight', () => {
  it('the environment, sys.executable and sys.orig_argv do not name the host\'s install path', async () => {
    const probe = 'import os, sys\ndef evaluate():\n    return [dict(os.environ), sys.executable, sys.orig_argv, sys._base_executable, sys.argv]\n';
    const res = await run('victim', probe);
    expect(JSON.stringify(res)).not.toContain(pyodideDir());
    expect(res).toEqual({
      ok: true,
      value: [
        { USER: 'web_user', LOGNAME: 'web_user', PATH: '/', PWD: '/', HOME: '/home/pyodide', LANG: 'C.UTF-8', PYTHONINSPECT: '1', LD_LIBRARY_PATH: '/usr/lib:/lib/python3.14/site-packages' },
        '/home/pyodide/this.program',
        ['./this.program'],
        '/home/pyodide/this.program',
        [''],
      ],
    });
  }, START_BOUND_MS);
});
