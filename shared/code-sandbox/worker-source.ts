/**
 * The sandbox process's program, run with `node -e` so the process needs no file read at all.
 * One request per stdin line: `{id, code, args, timeoutMs}`; one reply per stdout line.
 *
 * Inside, each evaluation gets a fresh `node:vm` context with only the JavaScript builtins: no
 * `require`, `process`, `fetch`, timers or any host object. Arguments enter as a JSON string parsed
 * by the context's own JSON, so no host object (whose constructor would lead back to the host's
 * Function) ever reaches user code; code generation from strings is off in the context and in
 * the whole process.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const vm = require('node:vm');
const readline = require('node:readline');
const out = process.stdout;
const scripts = new Map();
function scriptFor(code) {
  let s = scripts.get(code);
  if (!s) {
    s = new vm.Script('(function () { "use strict"; const module = { exports: {} }; const exports = module.exports;\n'
      + '(function (module, exports) {\n' + code + '\n})(module, exports);\n'
      + 'const ev = typeof module.exports.evaluate === "function" ? module.exports.evaluate : (module.exports.default && module.exports.default.evaluate);\n'
      + 'if (typeof ev !== "function") throw new Error("the module does not export a function evaluate(args)");\n'
      + 'return ev(JSON.parse(__tracecheck_args));\n})()', { filename: 'check.js' });
    if (scripts.size > 200) scripts.delete(scripts.keys().next().value);
    scripts.set(code, s);
  }
  return s;
}
function describe(err) {
  try {
    if (err && typeof err === 'object' && typeof err.message === 'string') return String(err.name || 'Error') + ': ' + err.message;
    return 'threw ' + String(err);
  } catch { return 'threw a value that cannot be described'; }
}
function reply(msg) { out.write(JSON.stringify(msg) + '\n'); }
async function handle(req) {
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: undefined });
  context.__tracecheck_args = req.args;
  let value;
  try {
    value = scriptFor(req.code).runInContext(context, { timeout: req.timeoutMs, breakOnSigint: false });
    if (value && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') value = await value;
  } catch (err) {
    const msg = describe(err);
    return reply({ id: req.id, ok: false, error: /Script execution timed out/.test(msg) ? 'timed out after ' + req.timeoutMs + ' ms' : 'evaluate threw: ' + msg });
  }
  const t = typeof value;
  if (t === 'boolean' || t === 'number') return reply({ id: req.id, ok: true, value: Number.isFinite(value) || t === 'boolean' ? value : String(value) });
  return reply({ id: req.id, ok: true, value: value === null ? null : t === 'string' ? value : { unsupported: t === 'object' ? (Array.isArray(value) ? 'array' : 'object') : t } });
}
const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => { chain = chain.then(() => handle(JSON.parse(line))).catch((err) => reply({ id: null, ok: false, error: describe(err) })); });
rl.on('close', () => process.exit(0));
`;
