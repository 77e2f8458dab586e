/**
 * The Python side of the sandbox, run once per interpreter right after Pyodide loads. It installs
 * the `okareo.checks` shims (so documented check files import as written), takes the JavaScript
 * bridge away from user code, and defines `_tc_call()`, the only entry point the worker calls: it
 * reads the request from `/tmp/.tracecheck/request.json` and writes the reply next to it.
 *
 * Why the bridge goes: Pyodide exposes JavaScript to Python (`import js`, `pyodide.ffi`,
 * `pyodide_js`). Every module of that family is dropped from `sys.modules`, its finder is taken
 * off `sys.meta_path` (and its cache of JavaScript modules emptied), and a finder that refuses
 * them (and the process/network modules) goes first. This is the convenience layer with a clear
 * error; what holds is in the worker (worker-source.ts): the interpreter's calls out to JavaScript
 * are refused, and its memory is put back after every call, so nothing done here by one call is
 * seen by the next.
 */
export const RUNNER_SOURCE = String.raw`
import builtins, gc, inspect, json, math, sys, traceback, types

_BLOCKED = frozenset([
    'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip', 'pyodide_http',
    'socket', '_socket', 'ssl', '_ssl', 'select', 'selectors', 'subprocess', '_posixsubprocess',
    'multiprocessing', '_multiprocessing', 'ctypes', '_ctypes', 'urllib.request', 'http.client',
])

class _DenyFinder:
    def find_spec(self, name, path=None, target=None):
        if name in _BLOCKED or name.split('.')[0] in _BLOCKED:
            raise ImportError(f"import of '{name}' is not allowed in a tracecheck Python check (no host, network or process access)")
        return None

_hook = sys.modules.get('_pyodide._importhook')
if _hook is not None and isinstance(getattr(getattr(_hook, 'jsfinder', None), 'jsproxies', None), dict):
    _hook.jsfinder.jsproxies.clear()
del _hook
for _name in list(sys.modules):
    if _name.split('.')[0] in _BLOCKED:
        del sys.modules[_name]
sys.meta_path[:] = [f for f in sys.meta_path if 'pyodide' not in type(f).__module__ and type(f).__name__ != 'JsFinder']
sys.meta_path.insert(0, _DenyFinder())

# okareo.checks as the Okareo SDK defines it, enough for check files to import and subclass.
_okareo = types.ModuleType('okareo')
_okareo.__path__ = []
_checks = types.ModuleType('okareo.checks')

class BaseCheck:
    @staticmethod
    def evaluate(*args, **kwargs):
        raise NotImplementedError('a check defines evaluate')

class CodeBasedCheck(BaseCheck):
    pass

class CheckOutputType:
    SCORE = 'score'
    PASS_FAIL = 'pass_fail'

class ModelBasedCheck(BaseCheck):
    def __init__(self, prompt_template, check_type=CheckOutputType.SCORE):
        self.prompt_template = prompt_template
        self.check_type = check_type

class CheckResponse:
    # What evaluate may return, as documented: the score (bool or number) with an explanation.
    def __init__(self, score, explanation=''):
        self.score = score
        self.explanation = explanation

for _cls in (BaseCheck, CodeBasedCheck, ModelBasedCheck, CheckOutputType, CheckResponse):
    _cls.__module__ = 'okareo.checks'
    setattr(_checks, _cls.__name__, _cls)
_okareo.checks = _checks
# The same classes under tracecheck.checks: a check written for the tracecheck Python client imports as written.
_tracecheck = types.ModuleType('tracecheck')
_tracecheck.__path__ = []
_tracecheck.checks = _checks
_BASELINE_SHIMS = {'okareo': _okareo, 'okareo.checks': _checks, 'tracecheck': _tracecheck, 'tracecheck.checks': _checks}  # kept in every call's sys.modules

def _jsonable(v, depth=0):
    if isinstance(v, CheckResponse):
        return {'check_response': True, 'score': _jsonable(v.score, depth + 1), 'explanation': str(v.explanation)[:2000]}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else float(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    if depth < 20 and isinstance(v, (list, tuple)):
        return [_jsonable(x, depth + 1) for x in v]
    if depth < 20 and isinstance(v, dict):
        return {str(k): _jsonable(x, depth + 1) for k, x in v.items()}
    return {'unsupported': type(v).__name__}

def _describe(err, filename):
    if isinstance(err, SyntaxError):
        return ''.join(traceback.format_exception_only(type(err), err)).strip().splitlines()[-1] + (f' (line {err.lineno})' if err.lineno else '')
    line = None
    for frame in traceback.extract_tb(err.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    text = f'{type(err).__name__}: {err}' if str(err) else type(err).__name__
    return text + (f' (line {line})' if line else '')

def _fresh_globals(name, values):
    g = {'__name__': name, '__builtins__': dict(builtins.__dict__)}
    g.update(values)
    return g

def _find_evaluate(g):
    classes = [v for v in g.values() if isinstance(v, type) and issubclass(v, BaseCheck) and v not in (BaseCheck, CodeBasedCheck, ModelBasedCheck)]
    cls = g.get('Check') if isinstance(g.get('Check'), type) else (classes[-1] if classes else None)
    if cls is not None:
        attr = inspect.getattr_static(cls, 'evaluate', None)
        if isinstance(attr, (staticmethod, classmethod)):
            return getattr(cls, 'evaluate')
        if callable(attr):
            return getattr(cls(), 'evaluate')
        raise TypeError(f'class {cls.__name__} defines no evaluate')
    fn = g.get('evaluate')
    if callable(fn):
        return fn
    raise TypeError('the file defines neither class Check(CodeBasedCheck) with evaluate nor a function evaluate')

def _call_by_name(fn, args):
    # Okareo passes what the signature names: evaluate(model_output, scenario_input, scenario_result), any subset, any order.
    sig = inspect.signature(fn)
    kwargs = {}
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            kwargs.update({k: v for k, v in args.items() if k not in kwargs})
        elif p.kind == p.VAR_POSITIONAL:
            continue
        elif p.name in args:
            kwargs[p.name] = args[p.name]
        elif p.default is p.empty:
            raise TypeError(f"evaluate asks for '{p.name}', which checks do not provide (available: {', '.join(sorted(args))})")
    return fn(**kwargs)

def _run_check(req):
    g = _fresh_globals('check', {})
    try:
        code = compile(req['source'], 'check.py', 'exec')
    except SyntaxError as err:
        return {'ok': False, 'error': 'does not compile: ' + _describe(err, 'check.py')}
    try:
        exec(code, g)
        fn = _find_evaluate(g)
    except BaseException as err:
        return {'ok': False, 'error': 'loading the check failed: ' + _describe(err, 'check.py')}
    try:
        value = _call_by_name(fn, req['args'])
    except BaseException as err:
        return {'ok': False, 'error': 'evaluate threw: ' + _describe(err, 'check.py')}
    return {'ok': True, 'value': _jsonable(value)}

def _run_snippet(req):
    g = _fresh_globals('__main__', req['vars'])
    try:
        code = compile(req['source'], 'snippet.py', 'exec')
    except SyntaxError as err:
        return {'ok': False, 'error': 'does not compile: ' + _describe(err, 'snippet.py')}
    try:
        exec(code, g)
    except BaseException as err:
        return {'ok': False, 'error': _describe(err, 'snippet.py')}
    return {'ok': True, 'values': {k: _jsonable(g[k]) for k in req['outputs'] if k in g}}

sys.modules.update(_BASELINE_SHIMS)
# Imports come from the interpreter's own read-only folders only: never the working folder ('') or /tmp,
# the one place a call can write.
sys.path[:] = [p for p in sys.path if p.startswith('/lib/')]
sys.dont_write_bytecode = True
sys.path_importer_cache.clear()
_REQUEST, _REPLY = '/tmp/.tracecheck/request.json', '/tmp/.tracecheck/reply.json'
_MAX_ERROR = 2000

def _tc_call():
    # The worker puts the whole interpreter back after this call: no restore is needed here.
    if 'random' in sys.modules:
        # Or every call would draw the same numbers from the restored generator.
        sys.modules['random'].seed()
    try:
        with open(_REQUEST, encoding='utf-8') as f:
            req = json.load(f)
        reply = _run_check(req) if req['kind'] == 'check' else _run_snippet(req)
    except BaseException as err:
        reply = {'ok': False, 'error': _describe(err, '')}
    if not reply['ok']:
        reply['error'] = str(reply['error'])[:_MAX_ERROR]
    try:
        text = json.dumps(reply, allow_nan=False)
    except BaseException as err:
        text = json.dumps({'ok': False, 'error': ('the result is not JSON: ' + _describe(err, ''))[:_MAX_ERROR]})
    with open(_REPLY, 'w', encoding='utf-8') as f:
        f.write(text)

gc.collect()
`
