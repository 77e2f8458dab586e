import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonClientVenv, runPython } from '../../helpers/python-venv.ts';

// The Python client follows redirects (urllib), and urllib copies every header onto the redirected
// request: a redirect to another host was handed the API key. The key now goes only where it was
// meant to: the same scheme, host and port.

const seen: { server: string; path: string; authorization: string | null }[] = [];

function listen(name: string, route: (path: string) => { location: string } | null): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ server: name, path: req.url ?? '', authorization: req.headers.authorization ?? null });
    const redirect = route(req.url ?? '');
    if (redirect) {
      res.writeHead(302, { location: redirect.location }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"checks": []}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const port = (s: Server) => (s.address() as AddressInfo).port;

let python: string;
let dir: string;
let origin: Server;
let other: Server;

beforeAll(async () => {
  python = await pythonClientVenv();
  dir = mkdtempSync(join(tmpdir(), 'tc-py-redirect-'));
  other = await listen('other', () => null);
  origin = await listen('origin', (path) => {
    if (path.startsWith('/away/')) return { location: `http://127.0.0.1:${port(other)}/api/v1/checks` };
    if (path.startsWith('/here/')) return { location: '/api/v1/checks' };
    return null;
  });
});

afterAll(async () => {
  await new Promise((r) => origin.close(r));
  await new Promise((r) => other.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('Python client: redirects', () => {
  it('keeps the key on a redirect within the origin and drops it on a redirect to another port or host', async () => {
    writeFileSync(join(dir, 'go.py'), `import os
from tracecheck import Tracecheck
for base in ("here", "away"):
    Tracecheck(api_key="tc_admin_secret", base_url=os.environ["BASE"] + "/" + base).get_all_checks()
`);
    await runPython(python, 'go.py', dir, { BASE: `http://127.0.0.1:${port(origin)}` });
    expect(seen).toEqual([
      { server: 'origin', path: '/here/api/v1/checks', authorization: 'Bearer tc_admin_secret' },
      { server: 'origin', path: '/api/v1/checks', authorization: 'Bearer tc_admin_secret' },
      { server: 'origin', path: '/away/api/v1/checks', authorization: 'Bearer tc_admin_secret' },
      { server: 'other', path: '/api/v1/checks', authorization: null },
    ]);
  });
});
