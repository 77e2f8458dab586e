/**
 * The Python program `tracecheck eval` starts for each snippet, with the user's interpreter. The
 * request (code, variables, the names to read back) arrives as JSON on stdin and the answer leaves
 * on fd 3, so nothing the user's code prints can be mistaken for it. `{name}` placeholders are
 * filled from data, never pasted as code: inside a plain string literal the literal is rebuilt
 * with the variable's text (as a template renders it), and a bare `{name}` becomes the value as a
 * Python literal.
 */
export const RUNNER_SOURCE = String.raw`
import ast, io, json, os, re, sys, tokenize, traceback

def _lit(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    if isinstance(v, list):
        return '[' + ', '.join(_lit(x) for x in v) + ']'
    if isinstance(v, dict):
        return '{' + ', '.join(repr(str(k)) + ': ' + _lit(x) for k, x in v.items()) + '}'
    return repr(str(v))

def _fill(src, texts, values):
    lines = src.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    pos = lambda rc: starts[rc[0] - 1] + rc[1]
    edits = []
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.type == tokenize.STRING:
            prefix = re.match(r'[A-Za-z]*', t.string).group(0).lower()
            if 'b' not in prefix and 'f' not in prefix:
                text = ast.literal_eval(t.string)
                pattern = re.compile(r'\{(' + '|'.join(re.escape(k) for k in texts) + r')\}') if texts else None
                if pattern and pattern.search(text):
                    edits.append((pos(t.start), pos(t.end), repr(pattern.sub(lambda m: texts[m.group(1)], text))))
        elif (t.type == tokenize.OP and t.string == '{' and i + 2 < len(toks) and toks[i + 1].type == tokenize.NAME
              and toks[i + 1].string in values and toks[i + 2].type == tokenize.OP and toks[i + 2].string == '}'):
            edits.append((pos(t.start), pos(toks[i + 2].end), _lit(values[toks[i + 1].string])))
            i += 3
            continue
        i += 1
    for start, end, new in reversed(edits):
        src = src[:start] + new + src[end:]
    return src

def _answer(obj):
    with os.fdopen(3, 'w') as out:
        json.dump(obj, out, default=str)

def main():
    req = json.load(sys.stdin)
    source = req['source']
    if req.get('substitute'):
        source = _fill(source, req['substitute']['texts'], req['substitute']['values'])
    scope = {'__name__': '__main__'}
    scope.update(req['vars'])
    try:
        exec(compile(source, '<code>', 'exec'), scope)
    except ModuleNotFoundError as e:
        _answer({'ok': False, 'error': "Python module '%s' is not installed for %s (%s); install it there, or choose the interpreter with --python or LLMEVAL_PYTHON" % (e.name, sys.executable, e)})
        return
    except BaseException as e:
        tb = traceback.extract_tb(e.__traceback__)
        line = next((f.lineno for f in reversed(tb) if f.filename == '<code>'), getattr(e, 'lineno', None))
        _answer({'ok': False, 'error': '%s: %s%s' % (type(e).__name__, e, '' if line is None else ' (line %d)' % line)})
        return
    _answer({'ok': True, 'values': {k: scope[k] for k in req['outputs'] if k in scope}})

main()
`;
