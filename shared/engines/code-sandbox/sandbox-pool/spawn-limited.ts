import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { networkIsolation } from './network-isolation.ts';

export interface ProcessLimits {
  /**
   * RLIMIT_DATA of the process: every private writable mapping counts (V8's heap, ArrayBuffer and
   * Buffer backing stores, WebAssembly memories, malloc), so an allocation past it fails whatever
   * JavaScript or WebAssembly asked for it. RLIMIT_AS would not do: V8 reserves about 10 GB of
   * address space for each WebAssembly memory (guard regions), so any useful AS cap refuses even
   * a 64 KB `WebAssembly.Memory`.
   */
  memoryMb: number;
  /** RLIMIT_CPU: a backstop for a child orphaned in a loop (the parent's SIGKILL is the real deadline). */
  cpuSeconds: number;
}

/**
 * Starts `node <args>` under OS resource limits the child cannot raise (soft = hard), set by
 * `/bin/sh`'s `ulimit` just before it execs node: no core files, RLIMIT_DATA and RLIMIT_CPU; on
 * Linux in a network namespace of its own where one can be made (network-isolation.ts), so it
 * reaches no address at all. The environment is empty. On Windows there is no `ulimit`: node
 * starts with only its own (V8) limits.
 */
export function spawnLimited(args: readonly string[], limits: ProcessLimits): ChildProcessWithoutNullStreams {
  if (process.platform === 'win32') return spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
  const dataKb = Math.floor(limits.memoryMb * 1024);
  const cpu = Math.max(1, Math.floor(limits.cpuSeconds));
  const script = `ulimit -c 0 && ulimit -d ${dataKb} && ulimit -t ${cpu} && unset PWD OLDPWD && exec "$0" "$@"`;
  const command = [...networkIsolation().prefix, process.execPath, ...args];
  return spawn('/bin/sh', ['-c', script, ...command], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
}
