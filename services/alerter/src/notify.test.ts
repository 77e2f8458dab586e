import { describe, expect, it } from 'vitest';
import type { AlertPayload } from '../../../shared/engines/alerts/index.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { classifyResponse, deliver, parseRetryAfter, type DeliveryPolicy, type Send } from './notify.ts';

/** The tests' receivers listen on loopback: allowed, as TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS=127.0.0.1 would. */
const loopbackAllowed = { allow: createAddressMatcher(parseAddressList('127.0.0.1').list) };

const payload: AlertPayload = { rule: 'r', state: 'firing', kind: 'threshold', check: 'c', summary: 's', value: 0.5, threshold: 0.9, window: '15m', units: [], fired_at: '2026-01-01T00:00:00.000Z' };
const policy: DeliveryPolicy = { attempts: 5, initialDelayMs: 1, maxDelayMs: 2, timeoutMs: 1_000, maxRetryAfterMs: 5 };

describe('classifyResponse', () => {
  it('delivers on 2xx, retries 408, 429 and 5xx, gives up on other answers', () => {
    expect([200, 204, 408, 429, 500, 503, 400, 401, 404, 410].map((s) => classifyResponse(s, null, 0).kind)).toEqual([
      'delivered', 'delivered', 'retry', 'retry', 'retry', 'retry', 'permanent', 'permanent', 'permanent', 'permanent',
    ]);
    expect(classifyResponse(429, '7', 0)).toEqual({ kind: 'retry', status: 429, error: 'HTTP 429', retryAfterMs: 7_000 });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.UTC(2026, 0, 1))).toBe(30_000);
    expect([parseRetryAfter(null, 0), parseRetryAfter('soon', 0)]).toEqual([null, null]);
  });
});

describe('deliver', () => {
  it('retries network errors and 429 until an answer is 2xx', async () => {
    const answers: Array<Response | Error> = [
      new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }),
      new Response('', { status: 429, headers: { 'retry-after': '1' } }),
      new Response('', { status: 202 }),
    ];
    const sent: string[] = [];
    const send: Send = (_url, init) => {
      sent.push(init.body);
      const answer = answers[sent.length - 1];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    };
    const d = await deliver({ type: 'webhook', url: 'http://127.0.0.1:1/x' }, payload, { send, outbound: loopbackAllowed, policy, signal: new AbortController().signal, now: () => 42 });
    expect(d).toEqual({ type: 'webhook', url: 'http://127.0.0.1:1/x', outcome: 'delivered', attempts: 3, status: 202, at_ms: 42 });
    expect(sent.map((b) => JSON.parse(b) as unknown)).toEqual([payload, payload, payload]);
  });

  it('stops after the last attempt and says why', async () => {
    const send: Send = () => Promise.resolve(new Response('', { status: 503 }));
    const d = await deliver({ type: 'slack', url: 'http://127.0.0.1:1/x' }, payload, { send, outbound: loopbackAllowed, policy: { ...policy, attempts: 2 }, signal: new AbortController().signal, now: () => 1 });
    expect(d).toEqual({ type: 'slack', url: 'http://127.0.0.1:1/x', outcome: 'failed', attempts: 2, status: 503, error: 'HTTP 503', at_ms: 1 });
  });
});
