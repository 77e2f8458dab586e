import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApiServer } from '../../../services/api/src/index.ts';

// The attack of issue 23: four concurrent 200 MB posts to /login, without a key. The server answers
// 413 from the headers (or at the first chunk past the limit) and closes the connection, so it
// neither holds nor reads the bodies: its RSS stays where it was.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring });
let adminKey = '';

beforeAll(async () => {
  await store.start();
  adminKey = (await keyring.create('shop', 'admin')).key;
  await api.start();
});
afterAll(async () => {
  await api.shutdown();
  await store.shutdown();
});

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * Posts `bytes` bytes (chunked when `declared` is false), writing until the server answers; the
 * status, and how many bytes were written before the answer.
 */
function post(path: string, bytes: number, declared: boolean, headers: Record<string, string> = {}): Promise<{ status: number; written: number; body: string }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(`${api.url()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(declared ? { 'content-length': String(bytes) } : {}), ...headers },
    });
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, written, body });
      });
    });
    // Writes after the server closed its side fail; the answer is what counts.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const pump = (): void => {
      while (!answered && written < bytes) {
        written += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('request bodies are bounded before parsing', () => {
  it('refuses four concurrent 200 MB logins from the headers, without reading them, and RSS stays put', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const answers = await Promise.all([0, 1, 2, 3].map(() => post('/login', 200 * 1024 * 1024, true)));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(answers.map((a) => a.status)).toEqual([413, 413, 413, 413]);
    expect(JSON.parse(answers[0].body)).toEqual({ error: 'request body too large: this route takes at most 16384 bytes' });
    // The client stops at the answer; the server never asked for more than its socket buffers.
    for (const a of answers) expect(a.written).toBeLessThan(16 * 1024 * 1024);
    expect(peak - before).toBeLessThan(24 * 1024 * 1024);
  });

  it('refuses a chunked login at the first chunk past 16 KB', async () => {
    const before = process.memoryUsage().rss;
    const answers = await Promise.all([0, 1, 2, 3].map(() => post('/login', 200 * 1024 * 1024, false)));
    expect(answers.map((a) => a.status)).toEqual([413, 413, 413, 413]);
    for (const a of answers) expect(a.written).toBeLessThan(16 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(24 * 1024 * 1024);
  });

  it('bounds admin writes by route: checks and simulations 1 MB, alert rules 64 KB, with a JSON 413', async () => {
    const auth = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    const checks = await post('/api/v1/checks', 100 * 1024 * 1024, true, auth);
    expect([checks.status, JSON.parse(checks.body)]).toEqual([413, { error: 'request body too large: this route takes at most 1048576 bytes' }]);
    const simulation = await post('/api/v1/simulations/s1', 150 * 1024 * 1024, false, auth);
    expect([simulation.status, JSON.parse(simulation.body)]).toEqual([413, { error: 'request body too large: this route takes at most 1048576 bytes' }]);
    const rule = await post('/api/v1/alert-rules', 1024 * 1024, true, auth);
    expect(rule.status).toBe(413);
    // Without a key the limit answers first: nothing is read on behalf of an unknown caller.
    const anonymous = await post('/api/v1/checks', 100 * 1024 * 1024, true, { 'content-type': 'application/json' });
    expect(anonymous.status).toBe(413);
  });

  it('takes a body within the limit, and answers 413, not 500, for one the store could not keep', async () => {
    const send = (content: string) =>
      fetch(`${api.url()}/api/v1/simulations/s1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content }] }),
      });
    expect((await send('x'.repeat(500_000))).status).toBe(201);
    const over = await send('x'.repeat(1_020_000));
    expect([over.status, await over.json()]).toEqual([413, { error: "a simulation's dialog is stored as at most 1000000 bytes of JSON" }]);
  });
});
