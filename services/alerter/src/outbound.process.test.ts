import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertPayload } from '../../../shared/engines/alerts/index.ts';
import { createAddressMatcher, parseAddressList, pinnedFetch, type Lookup, type OutboundPolicy } from '../../../shared/runtime/http/index.ts';
import { DEFAULT_DELIVERY_POLICY, deliver } from './notify.ts';

// Issue 23's SSRF: a webhook of one project pointed at loopback, the private network or cloud
// metadata. The alerter resolves the target before every attempt, refuses non-public addresses the
// operator did not allow, and connects to the address it checked.

const payload: AlertPayload = { rule: 'r', state: 'firing', kind: 'threshold', check: 'c', summary: 's', value: 0.5, threshold: 0.9, window: '15m', units: [], fired_at: '2026-01-01T00:00:00.000Z' };
const policy = { ...DEFAULT_DELIVERY_POLICY, attempts: 1, timeoutMs: 2_000 };
const allowing = (text: string, lookup?: Lookup): OutboundPolicy => ({ allow: createAddressMatcher(parseAddressList(text).list), ...(lookup ? { lookup } : {}) });

let server: Server;
let port = 0;
const hosts: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = (url: string, outbound: OutboundPolicy) =>
  deliver({ type: 'webhook', url }, payload, { send: pinnedFetch, outbound, policy, signal: new AbortController().signal, now: () => 7 });

describe('alert deliveries reach only public addresses, or the ones the operator allows', () => {
  it('refuses a loopback listener without connecting to it, and delivers once 127.0.0.1 is allowed', async () => {
    const before = hosts.length;
    const refused = await send(`http://127.0.0.1:${port}/hook`, allowing(''));
    expect(refused).toEqual({
      type: 'webhook', url: `http://127.0.0.1:${port}/hook`, outcome: 'failed', attempts: 1, at_ms: 7,
      error: 'refused: 127.0.0.1, a loopback address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it',
    });
    expect(hosts.length).toBe(before);
    expect((await send(`http://127.0.0.1:${port}/hook`, allowing('127.0.0.1'))).outcome).toBe('delivered');
    expect(hosts.length).toBe(before + 1);
  });

  it('refuses metadata, private, CGNAT, IPv6 and IPv4-mapped IPv6 targets, however they are spelled', async () => {
    const reasons: Record<string, string> = {};
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://10.1.2.3/', 'http://172.31.0.1/', 'http://192.168.1.1/', 'http://100.64.0.1/',
      'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[fe80::1]/',
      'http://0x7f000001/', 'http://2130706433/', 'http://0.0.0.0/',
    ]) {
      const d = await send(url, allowing(''));
      reasons[url] = `${d.outcome} ${(d.error ?? '').replace(/; list it.*/, '')}`;
    }
    expect(reasons).toEqual({
      'http://169.254.169.254/latest/meta-data/': 'failed refused: 169.254.169.254, a link-local (cloud metadata) address',
      'http://[fd00:ec2::254]/latest/meta-data/': 'failed refused: fd00:ec2::254, a private (unique local) address',
      'http://10.1.2.3/': 'failed refused: 10.1.2.3, a private address',
      'http://172.31.0.1/': 'failed refused: 172.31.0.1, a private address',
      'http://192.168.1.1/': 'failed refused: 192.168.1.1, a private address',
      'http://100.64.0.1/': 'failed refused: 100.64.0.1, a carrier-grade NAT address',
      'http://[::1]/': 'failed refused: ::1, a loopback address',
      // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1; either way it is 127.0.0.1.
      'http://[::ffff:127.0.0.1]/': 'failed refused: ::ffff:7f00:1 resolves to 127.0.0.1, a loopback address',
      'http://[::ffff:a9fe:a9fe]/': 'failed refused: ::ffff:a9fe:a9fe resolves to 169.254.169.254, a link-local (cloud metadata) address',
      'http://[fe80::1]/': 'failed refused: fe80::1, a link-local address',
      'http://0x7f000001/': 'failed refused: 127.0.0.1, a loopback address',
      'http://2130706433/': 'failed refused: 127.0.0.1, a loopback address',
      'http://0.0.0.0/': 'failed refused: 0.0.0.0, a this-network address',
    });
  });

  it('refuses a name that resolves to a private address, even when one of its addresses is public', async () => {
    const lookup: Lookup = (host) => Promise.resolve(host === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    expect((await send('https://mixed.example/hook', allowing('', lookup))).error).toBe('refused: mixed.example resolves to 10.0.0.5, a private address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it');
    expect((await send('https://localhost/hook', allowing('', lookup))).error).toBe('refused: localhost resolves to 127.0.0.1, a loopback address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it');
    // A range allows its addresses only.
    expect((await send('https://mixed.example/hook', allowing('10.0.0.0/8', lookup))).error).not.toMatch(/^refused/);
    expect((await send('http://192.168.1.1/', allowing('10.0.0.0/8'))).error).toMatch(/^refused: 192\.168\.1\.1, a private address/);
  });

  it('checks again at each delivery (DNS rebinding) and connects to the address it checked', async () => {
    // hooks.test is no real name: the request reaches the listener only through the checked address.
    let answer = '127.0.0.1';
    const lookup: Lookup = () => Promise.resolve([{ address: answer, family: 4 }]);
    const before = hosts.length;
    expect((await send(`http://hooks.test:${port}/hook`, allowing('hooks.test', lookup))).outcome).toBe('delivered');
    expect(hosts.slice(before)).toEqual([`hooks.test:${port}`]);
    // The same name re-pointed at metadata, with only 127.0.0.1 allowed: refused at delivery.
    answer = '169.254.169.254';
    expect((await send(`http://hooks.test:${port}/hook`, allowing('127.0.0.1', lookup))).error).toBe(
      'refused: hooks.test resolves to 169.254.169.254, a link-local (cloud metadata) address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it',
    );
    expect(hosts.length).toBe(before + 1);
  });
});
