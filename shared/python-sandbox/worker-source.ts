/**
 * The Python sandbox process's program (an ES module run with `node --input-type=module -e`, so
 * the process reads no file but Pyodide's own). Arguments: the Pyodide package folder, the
 * WebAssembly memory cap in MB, and the Python runner source (runner-source.ts).
 *
 * Protocol: one JSON line `{"ready": true, "startMs"}` once the interpreter is up, then one request
 * per stdin line `{id, request}` (request: the JSON text `_tc_call` reads) and one reply per stdout
 * line `{id, reply, exiting}` (`exiting`: the process ends after this reply). Python's own stdout and stderr are discarded so user prints cannot forge a
 * reply.
 *
 * Layers, outermost first:
 * - the parent starts this process under OS limits (RLIMIT_DATA over everything it allocates,
 *   RLIMIT_CPU, no core files: shared/sandbox-pool) and the Node permission model with no allow
 *   flag but a read of the Pyodide folder: no other file read, no write, no child process, no
 *   worker, no addon; an empty environment; SIGKILL at the deadline;
 * - here, before any Python runs: the host's network entry points (fetch, WebSocket, …) and
 *   `process.binding` are removed, and Pyodide gets an empty object as its JavaScript globals, so
 *   even a reached bridge finds no host object;
 * - WebAssembly memory growth past the cap is refused (Python sees MemoryError) and the process then
 *   exits, so the next call gets a clean interpreter; V8's own heap is capped by
 *   `--max-old-space-size`.
 */
export const PYTHON_WORKER_SOURCE = String.raw`
import { constants as fsConstants } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [pyodideDir, wasmMbText, runnerSource] = process.argv.slice(1);
const wasmCapBytes = Number(wasmMbText) * 1024 * 1024;
const started = performance.now();
// Which limit refused memory: the interpreter's cap ('cap') or the process's OS data limit ('os').
let memoryRefused = null;

// Pyodide's NODEFS setup reads fs flag constants through process.binding, which the permission model forbids.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error('process.binding is not available');
};
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > wasmCapBytes) {
    memoryRefused = 'cap';
    throw new RangeError('memory limit reached');
  }
  try {
    return grow.call(this, pages);
  } catch (err) {
    // Under the cap but past the process's OS data limit: the same outcome.
    memoryRefused = 'os';
    throw err;
  }
};

const { loadPyodide } = await import(pathToFileURL(pyodideDir + '/pyodide.mjs').href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + '/', jsglobals: {}, env: { HOME: '/home/pyodide' }, stdout: () => {}, stderr: () => {}, checkAPIVersion: true });
for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource', 'Request', 'Response', 'navigator']) {
  try { delete globalThis[name]; } catch {}
}
const namespace = pyodide.globals.get('dict')();
pyodide.runPython(runnerSource, { globals: namespace });
const call = namespace.get('_tc_call');

const write = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
write({ ready: true, startMs: Math.round(performance.now() - started) });

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, request } = JSON.parse(line);
  let reply;
  let fatal = false;
  try {
    reply = call(request);
  } catch (err) {
    // A JavaScript error under Python (the permission model refusing os.system, say) leaves the interpreter suspect.
    fatal = true;
    reply = JSON.stringify({ ok: false, error: 'refused by the sandbox: ' + String(err && err.message ? err.message : err).split('\n').slice(-2).join(' ').trim() });
  }
  if (memoryRefused) reply = JSON.stringify({ ok: false, error: 'memory', memory: memoryRefused });
  // After a refused allocation or a fault the state is suspect: exit once the reply is out; the pool starts a fresh interpreter.
  // Recycled after five minutes of CPU, long before RLIMIT_CPU (ten) would kill it mid-call.
  const cpu = process.cpuUsage();
  const exiting = memoryRefused !== null || fatal || cpu.user + cpu.system > 300e6;
  process.stdout.write(JSON.stringify({ id, reply, exiting }) + '\n', () => {
    if (exiting) process.exit(0);
  });
}).on('close', () => process.exit(0));
`;
