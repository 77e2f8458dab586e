import { REFUSE_NETWORK_SOURCE } from './sandbox-pool/index.ts';

/**
 * The sandbox process's program, run with `node -e` so the process needs no file read at all.
 * The pool's line protocol (sandbox-pool/): `{"ready": true}` once, then one stdin line
 * `{id, request}` per evaluation (request: JSON text of `{code, args, timeoutMs}`) and one stdout
 * line `{id, ok, value | error, memory?, exiting?}`.
 *
 * A failed allocation (the OS data limit reached by an ArrayBuffer, a Buffer or a WebAssembly
 * memory) is reported as `memory` and the process then exits, so the next evaluation gets a clean
 * one; so does a process that has used a minute of CPU, well before its RLIMIT_CPU.
 *
 * Inside, each evaluation gets a fresh `node:vm` context with only the JavaScript builtins: no
 * `require`, `process`, `fetch`, timers or any host object. Arguments enter as a JSON string parsed
 * by the context's own JSON, so no host object (whose constructor would lead back to the host's
 * Function) ever reaches user code; code generation from strings is off in the context and in
 * the whole process. The socket and process modules are disarmed in the process too
 * (refuse-network-source.ts), under the network namespace the pool starts it in where it can.
 *
 * Work a check leaves behind cannot outlive its evaluation: the context has its own microtask
 * queue (`microtaskMode: 'afterEvaluate'`), drained at the end of the evaluation inside its
 * timeout and never again once the context is dropped; so a promise job or an endless microtask
 * chain queued before `return` runs on the check's own deadline (which ends its process) and
 * never on the next check's. `FinalizationRegistry` and `WeakRef` are removed from the context,
 * as their callbacks would run as host tasks later. The result is read from inside the context
 * after the drain: a promise still pending then can never settle, so no reply is sent and the
 * deadline ends the process.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
${REFUSE_NETWORK_SOURCE}
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
      + 'const box = { settled: false, threw: false, value: undefined };\n'
      + 'const r = ev(JSON.parse(__tracecheck_args));\n'
      + 'if (r !== null && (typeof r === "object" || typeof r === "function") && typeof r.then === "function") Promise.resolve(r).then((v) => { box.settled = true; box.value = v; }, (e) => { box.settled = true; box.threw = true; box.value = e; });\n'
      + 'else { box.settled = true; box.value = r; }\n'
      + 'return box;\n})()', { filename: 'check.js' });
    if (scripts.size > 200) scripts.delete(scripts.keys().next().value);
    scripts.set(code, s);
  }
  return s;
}
// Text leaving the process is bounded, so a check cannot make the scorer read a huge line.
const MAX_TEXT = 2000;
function describe(err) {
  try {
    if (err && typeof err === 'object' && typeof err.message === 'string') return (String(err.name || 'Error') + ': ' + err.message).slice(0, MAX_TEXT);
    return ('threw ' + String(err)).slice(0, MAX_TEXT);
  } catch { return 'threw a value that cannot be described'; }
}
const MEMORY_ERROR = /allocation failed|could not allocate memory|Unable to grow instance memory|out of memory/i;
// The context's own RangeError, so matched by name: user code may throw one too, and only restarts its process by it.
const isMemoryError = (msg) => msg.startsWith('RangeError: ') && MEMORY_ERROR.test(msg);
const RECYCLE_CPU_MICROS = 60e6;
let exiting = false;
function reply(msg) {
  const cpu = process.cpuUsage();
  if (msg.memory || msg.exiting || cpu.user + cpu.system > RECYCLE_CPU_MICROS) exiting = true;
  out.write(JSON.stringify(exiting ? { ...msg, exiting: true } : msg) + '\n', () => { if (exiting) process.exit(0); });
}
// Host-task callbacks a check could leave behind; removed from each context before the check runs.
const prepare = new vm.Script('delete globalThis.FinalizationRegistry; delete globalThis.WeakRef;');
function handle(id, req) {
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
  context.__tracecheck_args = req.args;
  let box;
  try {
    prepare.runInContext(context);
    box = scriptFor(req.code).runInContext(context, { timeout: req.timeoutMs, breakOnSigint: false });
  } catch (err) {
    const msg = describe(err);
    // The timeout also stopped what the check queued: its process ends with it.
    if (/Script execution timed out/.test(msg)) return reply({ id, ok: false, error: 'timed out after ' + req.timeoutMs + ' ms', exiting: true });
    if (isMemoryError(msg)) return reply({ id, ok: false, error: msg, memory: true });
    return reply({ id, ok: false, error: 'evaluate threw: ' + msg });
  }
  // Pending after the drain: it can never settle. No reply; the parent's deadline ends the process.
  if (!box.settled) return;
  let value = box.value;
  if (box.threw) {
    const msg = describe(value);
    if (isMemoryError(msg)) return reply({ id, ok: false, error: msg, memory: true });
    return reply({ id, ok: false, error: 'evaluate threw: ' + msg });
  }
  const t = typeof value;
  if (t === 'boolean' || t === 'number') return reply({ id, ok: true, value: Number.isFinite(value) || t === 'boolean' ? value : String(value) });
  return reply({ id, ok: true, value: value === null ? null : t === 'string' ? value.slice(0, MAX_TEXT) : { unsupported: t === 'object' ? (Array.isArray(value) ? 'array' : 'object') : t } });
}
const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  if (exiting) return;
  const { id, request } = JSON.parse(line);
  chain = chain.then(() => handle(id, JSON.parse(request))).catch((err) => reply({ id, ok: false, error: describe(err), memory: isMemoryError(describe(err)) }));
});
rl.on('close', () => process.exit(0));
out.write(JSON.stringify({ ready: true, startMs: Math.round(performance.now()) }) + '\n');
`;
