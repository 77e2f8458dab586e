// Setup file of the vitest `unit` project (vitest.config.ts): a unit test may not start a process
// or a worker thread, open a socket, or write to the disk. Each such call throws PureUnitViolation
// naming the project the test belongs in, so the unit project stays fast and runs anywhere.
// Reading files stays allowed: docs tests and fixtures read the tree.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

export class PureUnitViolation extends Error {
  constructor(what: string) {
    super(`${what} in a unit test: the unit project is pure (no processes, sockets or disk writes); name the file *.process.test.ts (process project) or move it under test/ (integration)`);
    this.name = 'PureUnitViolation';
  }
}

function forbid(owner: object, names: readonly string[], what: string): void {
  const target = owner as Record<string, unknown>;
  for (const name of names) {
    if (typeof target[name] !== 'function') continue;
    target[name] = () => {
      throw new PureUnitViolation(`${what}.${name}`);
    };
  }
}

const FS_WRITES = [
  'writeFile', 'appendFile', 'mkdir', 'mkdtemp', 'rm', 'rmdir', 'unlink', 'rename', 'copyFile', 'cp',
  'truncate', 'symlink', 'link', 'createWriteStream',
];
const FS_SYNC_WRITES = FS_WRITES.filter((n) => n !== 'createWriteStream').map((n) => `${n}Sync`);

/** Whether `flags` (fs.open's) writes or creates. */
function writes(flags: unknown): boolean {
  if (typeof flags === 'number') return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0;
  return typeof flags === 'string' && /[wa+]/.test(flags);
}

export function installPureUnitGuard(): void {
  forbid(childProcess, ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'], 'child_process');
  (workerThreads as { Worker: unknown }).Worker = class {
    constructor() {
      throw new PureUnitViolation('new worker_threads.Worker');
    }
  };
  const listen = (): never => {
    throw new PureUnitViolation('net.Server.listen');
  };
  net.Server.prototype.listen = listen;
  const connect = (): never => {
    throw new PureUnitViolation('net.Socket.connect');
  };
  net.Socket.prototype.connect = connect;
  forbid(fs, [...FS_WRITES, ...FS_SYNC_WRITES], 'fs');
  forbid(fs.promises, FS_WRITES, 'fs.promises');
  const { open, openSync } = fs;
  const openPromise = fs.promises.open;
  (fs as { open: unknown }).open = (path: fs.PathLike, flags: unknown, ...rest: unknown[]) => {
    if (writes(flags)) throw new PureUnitViolation('fs.open for writing');
    return (open as (...a: unknown[]) => unknown)(path, flags, ...rest);
  };
  (fs as { openSync: unknown }).openSync = (path: fs.PathLike, flags: fs.OpenMode = 'r', mode?: fs.Mode) => {
    if (writes(flags)) throw new PureUnitViolation('fs.openSync for writing');
    return openSync(path, flags, mode);
  };
  (fs.promises as { open: unknown }).open = (path: fs.PathLike, flags?: string | number, mode?: fs.Mode) => {
    if (writes(flags)) throw new PureUnitViolation('fs.promises.open for writing');
    return openPromise(path, flags, mode);
  };
  // `import { spawn } from 'node:child_process'` reads the ES module's own bindings: copy the patches there.
  syncBuiltinESMExports();
}

installPureUnitGuard();
