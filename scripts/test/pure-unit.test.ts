import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, open, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

// This file runs in the unit project, so scripts/test/pure-unit.ts is installed here as in every unit test.
describe('the unit project is pure', () => {
  const scratch = join(tmpdir(), 'tracecheck-pure-unit-never-written');

  it('refuses to start a process or a worker thread, naming the project to use', () => {
    expect(() => spawn('node', ['-e', '1'])).toThrow('child_process.spawn in a unit test: the unit project is pure (no processes, sockets or disk writes); name the file *.process.test.ts (process project) or move it under test/ (integration)');
    expect(() => execFileSync('true')).toThrow(/^child_process\.execFileSync in a unit test/);
    expect(() => new Worker('1', { eval: true })).toThrow(/^new worker_threads\.Worker in a unit test/);
  });

  it('refuses to listen on or connect to a socket', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(/^net\.Server\.listen in a unit test/);
    expect(() => connect(1, '127.0.0.1')).toThrow(/^net\.Socket\.connect in a unit test/);
  });

  it('refuses to write to the disk, and still reads it', async () => {
    expect(() => writeFileSync(scratch, 'x')).toThrow(/^fs\.writeFileSync in a unit test/);
    expect(() => writeFile(scratch, 'x')).toThrow(/^fs\.promises\.writeFile in a unit test/);
    expect(() => mkdtemp(scratch)).toThrow(/^fs\.promises\.mkdtemp in a unit test/);
    expect(() => open(scratch, 'w')).toThrow(/^fs\.promises\.open for writing in a unit test/);
    expect(JSON.parse(readFileSync('package.json', 'utf8'))).toMatchObject({ name: 'tracecheck' });
    const handle = await open('package.json', 'r');
    await handle.close();
  });
});
