import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentRefFetcher, type ContentRefFetcher } from '../../../shared/kit/content-refs/fetch-content-ref.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';

// Fetching content recorded by reference: only under the allowed prefixes (after `..` and links
// are resolved, and after every redirect), at most the size limit, within the timeout.

const MESSAGES = '[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris?"}]}]';
let dir: string;
let server: Server;
let base: string;
let fetcher: ContentRefFetcher;
let hold: (() => void) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'content-refs-'));
  mkdirSync(join(dir, 'allowed'));
  mkdirSync(join(dir, 'allowed-not'));
  writeFileSync(join(dir, 'allowed', 'input.json'), MESSAGES);
  writeFileSync(join(dir, 'allowed', 'big.json'), 'x'.repeat(2_000));
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  writeFileSync(join(dir, 'allowed-not', 'input.json'), 'sibling');
  symlinkSync(join(dir, 'secret.txt'), join(dir, 'allowed', 'link.json'));
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/genai/input.json') return void res.end(MESSAGES);
    if (path === '/genai/big.json') return void res.end('y'.repeat(2_000));
    if (path === '/genai/chunked-big.json') {
      res.write('z'.repeat(1_000));
      return void res.end('z'.repeat(1_000));
    }
    if (path === '/genai/moved.json') return void res.writeHead(302, { location: '/genai/input.json' }).end();
    if (path === '/genai/escape.json') return void res.writeHead(302, { location: '/private/keys.json' }).end();
    if (path === '/genai/slow.json') {
      hold = () => res.end(MESSAGES);
      return undefined;
    }
    if (path === '/private/keys.json') return void res.end('private');
    return void res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ TRACECHECK_CONTENT_REF_ALLOW: `${pathToFileURL(join(dir, 'allowed')).href},${base}/genai/`, TRACECHECK_CONTENT_REF_MAX_BYTES: '1000', TRACECHECK_CONTENT_REF_TIMEOUT_MS: '300' });
  fetcher = createContentRefFetcher(config.contentRefs)!;
});
afterAll(async () => {
  hold?.();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('fetching content by reference', () => {
  it('is off with no prefix allowed', () => {
    expect(createContentRefFetcher(loadConfig({}).contentRefs)).toBeNull();
  });

  it('reads an allowed file and an allowed URL, following a redirect that stays allowed', async () => {
    const file = pathToFileURL(join(dir, 'allowed', 'input.json')).href;
    expect(await fetcher(file)).toEqual({ ok: true, text: MESSAGES });
    expect(await fetcher(`${base}/genai/input.json`)).toEqual({ ok: true, text: MESSAGES });
    expect(await fetcher(`${base}/genai/moved.json`)).toEqual({ ok: true, text: MESSAGES });
  });

  it('refuses what lies outside once resolved: .., %2e%2e, a sibling directory, a link out, another scheme', async () => {
    const allowed = pathToFileURL(join(dir, 'allowed')).href;
    const refused = async (uri: string): Promise<string> => {
      const r = await fetcher(uri);
      expect(r.ok).toBe(false);
      return r.ok ? '' : r.error;
    };
    expect(await refused(`${allowed}/../secret.txt`)).toBe(`${allowed}/../secret.txt is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW`);
    expect(await refused(`${allowed}/%2e%2e/secret.txt`)).toContain('is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW');
    expect(await refused(`${allowed}-not/input.json`)).toContain('is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW');
    expect(await refused(`${allowed}/link.json`)).toContain('is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW');
    expect(await refused('file:///etc/passwd')).toBe('file:///etc/passwd is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW');
    expect(await refused(`${base}/genai/../private/keys.json`)).toContain('is not under a prefix');
    expect(await refused('ftp://127.0.0.1/genai/input.json')).toContain('is not under a prefix');
  });

  it('refuses a redirect off the list, oversize content (declared or streamed), and a slow answer', async () => {
    expect(await fetcher(`${base}/genai/escape.json`)).toEqual({ ok: false, error: `${base}/genai/escape.json redirects to ${base}/private/keys.json, which is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW` });
    const big = { ok: false, error: expect.stringContaining('is larger than TRACECHECK_CONTENT_REF_MAX_BYTES (1000 bytes)') as unknown };
    expect(await fetcher(pathToFileURL(join(dir, 'allowed', 'big.json')).href)).toEqual(big);
    expect(await fetcher(`${base}/genai/big.json`)).toEqual(big);
    expect(await fetcher(`${base}/genai/chunked-big.json`)).toEqual(big);
    const started = performance.now();
    expect(await fetcher(`${base}/genai/slow.json`)).toEqual({ ok: false, error: `${base}/genai/slow.json took longer than TRACECHECK_CONTENT_REF_TIMEOUT_MS (300 ms)` });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('names a bad prefix at start', () => {
    expect(() => loadConfig({ TRACECHECK_CONTENT_REF_ALLOW: 'ftp://x/,/var/lib' })).toThrow('"ftp://x/": only file://, http:// and https:// prefixes can be allowed');
  });
});
