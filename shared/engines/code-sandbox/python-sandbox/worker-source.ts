import { REFUSE_NETWORK_SOURCE } from '../sandbox-pool/index.ts';

/**
 * The Python sandbox process's program (an ES module run with `node --input-type=module -e`, so
 * the process reads no file but Pyodide's own). Arguments: the Pyodide package folder, the
 * WebAssembly memory cap in MB, and the Python runner source (runner-source.ts).
 *
 * Protocol: one JSON line `{"ready": true, "startMs"}` once the interpreter is up, then one request
 * per stdin line `{id, request}` (request: the JSON text `_tc_call` reads) and one reply per stdout
 * line `{id, reply, exiting}` (`exiting`: the process ends after this reply). Python's own stdout
 * and stderr are discarded so user prints cannot forge a reply.
 *
 * Layers, outermost first:
 * - the parent starts this process under OS limits (RLIMIT_DATA over everything it allocates,
 *   RLIMIT_CPU, no core files), in a network namespace of its own where the platform allows
 *   (../sandbox-pool), and the Node permission model with no allow flag but a read of the
 *   Pyodide folder: no other file read, no write, no child process, no worker, no addon; an empty
 *   environment; SIGKILL at the deadline;
 * - here, before Pyodide loads: the socket, DNS and process modules are disarmed
 *   (refuse-network-source.ts), `process.binding` and the host's fetch/WebSocket are removed;
 * - the bridge from Python to JavaScript is cut where WebAssembly calls out: every function the
 *   interpreter imports from JavaScript is wrapped, and once the runner is loaded only the ones a
 *   plain interpreter needs (file-system system calls on Pyodide's in-memory file system, clocks,
 *   randomness, heap growth, signal polling, the call trampoline) still answer; the rest — JsProxy
 *   and PyProxy operations, conversions, sockets, dlopen, `system()`, the ffi — throw, so a Python
 *   object that still leads to JavaScript (found through `gc`, say) leads nowhere;
 * - every evaluation starts from the same pristine interpreter: after the runner loaded, the whole
 *   WebAssembly memory (the interpreter: its modules, classes, hooks, allocator) is copied once and
 *   written back after each call, with the stack pointer. What lives outside that memory is
 *   compared instead (Pyodide's in-memory files, open streams, the function table): a call that
 *   changed any of it ends its process after its reply, as does a call that hit the memory cap or
 *   made JavaScript throw;
 * - calls go through the interpreter's C entry point with the request and reply as files, so no
 *   JavaScript value is ever converted into Python.
 */
export const PYTHON_WORKER_SOURCE = String.raw`
import { constants as fsConstants } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
${REFUSE_NETWORK_SOURCE}
const [pyodideDir, wasmMbText, runnerSource] = process.argv.slice(1);
// Emscripten names the program after argv[1] (the Pyodide folder here): Python would read the host's
// install path in sys.executable, sys.orig_argv and os.environ['_'].
process.argv.splice(1);
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

// What a plain interpreter calls out to once loaded (measured over the sandbox's tests): everything else is the bridge.
const ALLOWED_IMPORT = /^(fd_(read|write|seek|close|fdstat_get|sync|pread|pwrite)|__syscall_(openat|fstat64|stat64|lstat64|newfstatat|getcwd|getdents64|fcntl64|ioctl|readlinkat|unlinkat|rmdir|mkdirat|renameat|faccessat|chdir|ftruncate64|truncate64|dup|dup3|pipe|poll|fdatasync|statfs64|fstatfs64|symlinkat|getrusage)|environ_(get|sizes_get)|clock_(time_get|res_get)|random_get|invoke_\w+|emscripten_(date_now|get_now|get_now_res|resize_heap|get_heap_max)|_(tzset|localtime|gmtime|mktime|timegm|abort|mmap|munmap|msync)_js|_PyEM_TrampolineCall_JS|can_run_sync_js|_Py_CheckEmscriptenSignals_Helper|_Py_emscripten_runtime|__assert_fail|_emscripten_get_progname|_emscripten_runtime_keepalive_clear|emscripten_runtime_keepalive_(push|pop))$/;
// Answered "operation not permitted" without reaching the file system: the modes set below stay as they are.
const DENIED_SYSCALL = /^__syscall_(fchmod|chmod|fchmodat2?|utimensat|fchown32|chown32|lchown32|fchownat)$/;
const EPERM = 63;
let bridgeOpen = true;
let bridgeRefused = null;
let gated = 0;
const gate = (imports) => {
  const wrapped = new Map();
  for (const [modName, mod] of Object.entries(imports)) {
    if (modName.startsWith('GOT.')) continue;
    for (const [name, fn] of Object.entries(mod)) {
      if (typeof fn !== 'function') continue;
      if (!wrapped.has(fn)) {
        if (ALLOWED_IMPORT.test(name)) {
          wrapped.set(fn, fn);
        } else if (DENIED_SYSCALL.test(name)) {
          // Emscripten's chmod and utime ask no permission: a check could make the read-only tree writable again.
          wrapped.set(fn, function (...args) {
            return bridgeOpen ? fn.apply(this, args) : -EPERM;
          });
        } else {
          const g = function (...args) {
            if (!bridgeOpen) {
              bridgeRefused = name;
              throw new Error('the host function ' + name + ' is not available to checks');
            }
            return fn.apply(this, args);
          };
          Object.assign(g, fn);
          Object.defineProperty(g, 'length', { value: fn.length });
          wrapped.set(fn, g);
        }
      }
      mod[name] = wrapped.get(fn);
      gated++;
    }
  }
};
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = function (source, imports) {
  if (imports) gate(imports);
  return instantiate.call(this, source, imports);
};
const { loadPyodide } = await import(pathToFileURL(pyodideDir + '/pyodide.mjs').href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + '/', jsglobals: {}, env: { HOME: '/home/pyodide', _: undefined }, stdout: () => {}, stderr: () => {}, checkAPIVersion: true });
WebAssembly.instantiate = instantiate;
// Fail closed: an interpreter whose calls out could not be wrapped is not started.
if (gated === 0) throw new Error('the Python sandbox could not gate the interpreter\'s calls to JavaScript');
for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource', 'Request', 'Response', 'navigator']) {
  try { delete globalThis[name]; } catch {}
}
const FS = pyodide.FS;
const M = pyodide._module;
const HOME = '/home/pyodide';
const DIR = '/tmp/.tracecheck';
pyodide.runPython(runnerSource);
const entry = M.stringToNewUTF8('_tc_call()');

// Nothing but /tmp is writable: every directory and file of the tree loses its write bits (Emscripten
// checks them on create, delete, rename, open for writing and truncate; chmod and utime are refused
// above), so stdlib modules, site-packages, .pth files, __pycache__, /proc, /dev/shm and the home
// folder cannot be written by any call.
const makeReadOnly = (path) => {
  const st = FS.lstat(path);
  if (!FS.isDir(st.mode) && !FS.isFile(st.mode)) return;
  FS.chmod(path, st.mode & ~0o222);
  if (!FS.isDir(st.mode)) return;
  for (const name of FS.readdir(path)) {
    const full = (path === '/' ? '' : path) + '/' + name;
    if (name !== '.' && name !== '..' && full !== '/proc/self/fd') makeReadOnly(full);
  }
};
makeReadOnly('/');
// /tmp is a file system of its own, unmounted with all a call wrote and mounted anew after every call.
const freshTmp = () => {
  if (FS.isMountpoint(FS.lookupPath('/tmp', { follow_mount: false }).node)) FS.unmount('/tmp');
  FS.mount(FS.filesystems.MEMFS, {}, '/tmp');
  FS.mkdir(DIR);
};
freshTmp();
FS.chdir(HOME);

// The whole file system outside /tmp (which is new after every call), the working folder, mounts,
// open streams and the function table: compared after each call, the last check that nothing the
// call did outlives it.
const fsState = () => {
  const out = ['cwd:' + FS.cwd()];
  const walk = (path) => {
    for (const name of FS.readdir(path)) {
      if (name === '.' || name === '..') continue;
      const full = (path === '/' ? '' : path) + '/' + name;
      // Open descriptors, listed below from the stream table.
      if (full === '/proc/self/fd') continue;
      const st = FS.lstat(full);
      const fresh = full === '/tmp' || full.startsWith('/tmp/');
      out.push(full + ':' + st.mode + (fresh ? '' : ':' + st.ino + ':' + st.size + ':' + Number(st.mtime) + ':' + Number(st.ctime)) + (FS.isLink(st.mode) ? ':' + FS.readlink(full) : ''));
      if (FS.isDir(st.mode)) walk(full);
    }
  };
  walk('/');
  for (const mount of FS.root.mount.mounts) out.push('mount:' + mount.mountpoint);
  FS.streams.forEach((s, fd) => { if (s) out.push('fd' + fd + ':' + (s.node && s.node.id)); });
  out.push('table:' + M.wasmTable.length);
  return out.join('\n');
};
const pristineFs = fsState();
const pristine = M.HEAPU8.slice();
const stackPointer = M.___stack_pointer.value;
bridgeOpen = false;

const restore = () => {
  const heap = M.HEAPU8;
  if (heap.length > pristine.length) heap.fill(0, pristine.length);
  heap.set(pristine);
  M.___stack_pointer.value = stackPointer;
};
// Back to the state every call starts from; false when that could not be done (the process ends).
const resetFiles = () => {
  try {
    FS.chdir(HOME);
    freshTmp();
    return fsState() === pristineFs;
  } catch {
    return false;
  }
};

const write = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
write({ ready: true, startMs: Math.round(performance.now() - started) });

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, request } = JSON.parse(line);
  let reply = null;
  let fatal = false;
  try {
    FS.writeFile(DIR + '/request.json', request);
    M._PyRun_SimpleString(entry);
    reply = FS.readFile(DIR + '/reply.json', { encoding: 'utf8' });
  } catch (err) {
    // JavaScript threw under Python (a refused host function, the permission model): the interpreter is suspect.
    fatal = true;
    const why = bridgeRefused ? 'the host function ' + bridgeRefused + ' is not available to checks' : String(err && err.message ? err.message : err).split('\n').slice(-2).join(' ').trim();
    reply = JSON.stringify({ ok: false, error: 'refused by the sandbox: ' + why });
  }
  // Files written, streams left open or functions added live outside the memory restored below.
  const changedOutside = !resetFiles();
  if (memoryRefused) reply = JSON.stringify({ ok: false, error: 'memory', memory: memoryRefused });
  // Recycled after five minutes of CPU, long before RLIMIT_CPU (ten) would kill it mid-call.
  const cpu = process.cpuUsage();
  const exiting = memoryRefused !== null || fatal || changedOutside || cpu.user + cpu.system > 300e6;
  process.stdout.write(JSON.stringify({ id, reply, exiting }) + '\n', () => {
    if (exiting) process.exit(0);
  });
  // After the reply is out, so the caller does not wait for it; before this handler returns, so the
  // next request (the next line) always meets the pristine interpreter.
  if (!exiting) restore();
}).on('close', () => process.exit(0));
`;
