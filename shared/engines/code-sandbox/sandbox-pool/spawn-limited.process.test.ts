import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { networkIsolation } from './network-isolation.ts';
import { REFUSE_NETWORK_SOURCE } from './refuse-network-source.ts';
import { spawnLimited } from './spawn-limited.ts';

/** Runs a program under the limits; its stdout and how it ended. */
function run(program: string, memoryMb: number): Promise<{ out: string; code: number | null; signal: string | null }> {
  const proc = spawnLimited(['-e', program], { memoryMb, cpuSeconds: 30 });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stdin.end();
  return new Promise((resolve) => proc.on('close', (code, signal) => resolve({ out: out.trim(), code, signal })));
}

// Each program allocates 1 GB in 64 MB steps, touching every page, and prints how far it got.
const steps = (allocate: string): string => `
  const keep = [];
  let mb = 0;
  try { for (; mb < 1024; mb += 64) { keep.push(${allocate}); } } catch (err) { console.log(err.constructor.name + ' at ' + mb + ' MB'); }
  if (mb === 1024) console.log('allocated 1024 MB');`;

describe.runIf(process.platform === 'linux')('processes started under OS limits (Linux)', () => {
  it('sets RLIMIT_DATA, RLIMIT_CPU and no core files, soft and hard', async () => {
    const r = await run("console.log(require('node:fs').readFileSync('/proc/self/limits', 'utf8').split('\\n').filter((l) => /^Max (data size|cpu time|core file size)/.test(l)).map((l) => l.split(/\\s{2,}/).slice(0, 3).join('|')).join('\\n'))", 200);
    expect(r.out.split('\n')).toEqual(['Max cpu time|30|30', 'Max data size|209715200|209715200', 'Max core file size|0|0']);
  });

  it('starts node with an empty environment', async () => {
    expect((await run('console.log(JSON.stringify(process.env))', 200)).out).toBe('{}');
  });

  it('refuses typed arrays, Buffers and WebAssembly memory past the data limit, which the V8 heap limit does not cover', async () => {
    // The same programs without the OS limit reach 1024 MB (checked here as the control).
    const u8 = steps('new Uint8Array(64 * 1024 * 1024).fill(1)');
    const buf = steps('Buffer.alloc(64 * 1024 * 1024, 1)');
    const wasm = `const m = new WebAssembly.Memory({ initial: 0, maximum: 65536 }); ${steps('(m.grow(1024), new Uint8Array(m.buffer).fill(1, m.buffer.byteLength - 64 * 1024 * 1024))')}`;
    expect((await run(u8, 4096)).out).toBe('allocated 1024 MB');
    expect((await run(u8, 256)).out).toMatch(/^RangeError at (128|192) MB$/);
    expect((await run(buf, 256)).out).toMatch(/^RangeError at (128|192) MB$/);
    expect((await run(wasm, 256)).out).toMatch(/^RangeError at (128|192) MB$/);
  });
});

/** A loopback listener, what it received, and a program that connects to it and prints how that went. */
async function listener(): Promise<{ port: number; received: string[]; close: () => Promise<void> }> {
  const received: string[] = [];
  const server = createServer((socket) => {
    received.push('connection');
    socket.on('data', (d: Buffer) => received.push(d.toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
const connectTo = (port: number): string => `
  try {
    const s = require('node:net').connect(${port}, '127.0.0.1', () => { s.write('secret'); console.log('connected'); s.end(); });
    s.on('error', (err) => console.log(err.code));
  } catch (err) { console.log(err.message); }`;

describe.runIf(networkIsolation().kind !== 'none')('sandbox processes in a network namespace of their own', () => {
  it(`reach no address: a connection to a loopback listener of the host fails, and the listener receives nothing (${networkIsolation().kind})`, async () => {
    const l = await listener();
    try {
      expect((await run(connectTo(l.port), 200)).out).toBe('ENETUNREACH');
      expect(l.received).toEqual([]);
    } finally {
      await l.close();
    }
  });
});

describe('the language-level refusal (every platform; the only layer without a network namespace)', () => {
  it('disarms node:net, http and child_process in the process, for require and import alike', async () => {
    const l = await listener();
    try {
      const program = `${REFUSE_NETWORK_SOURCE}
        ${connectTo(l.port)}
        for (const attempt of [() => new (require('node:net').Socket)().connect(${l.port}), () => require('node:http').get('http://127.0.0.1:${l.port}/'), () => require('node:child_process').spawnSync('id')]) {
          try { attempt(); console.log('not refused'); } catch (err) { console.log(err.message); }
        }
        import('node:net').then((net) => { try { net.connect(${l.port}); } catch (err) { console.log('import: ' + err.message); } });`;
      const proc = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((resolve) => proc.on('close', resolve));
      expect(out.trim().split('\n')).toEqual([
        'node:net connect is not available in a tracecheck sandbox (no network, no processes)',
        'node:net Socket.connect is not available in a tracecheck sandbox (no network, no processes)',
        'node:http get is not available in a tracecheck sandbox (no network, no processes)',
        'node:child_process spawnSync is not available in a tracecheck sandbox (no network, no processes)',
        'import: node:net connect is not available in a tracecheck sandbox (no network, no processes)',
      ]);
      expect(l.received).toEqual([]);
    } finally {
      await l.close();
    }
  });
});
