import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JudgeClient, JudgeRequest, JudgeResponse } from '../checks/index.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { JudgeRetriableError } from './judge-error.ts';
import { createResilientJudge, type JudgeOperations } from './resilient-judge.ts';

const OPS: JudgeOperations = { concurrency: 2, ratePerMinute: 60_000, timeoutMs: 100, deadlineMs: 1_000, breakerFailures: 3, breakerCooldownMs: 200, cacheEntries: 100, backoff: { initialDelayMs: 10, maxDelayMs: 20 } };
const ok: JudgeResponse = { text: '[[True]]', model: 'm', inputTokens: 10, outputTokens: 2 };

/** A raw judge whose behaviour the test switches: answer, 429 with Retry-After, hang until aborted, or a 400. */
function scripted() {
  let mode: 'ok' | '429' | 'hang' | '400' = 'ok';
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const client: JudgeClient = {
    async complete(request: JudgeRequest) {
      calls += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (mode === '429') throw new JudgeRetriableError('judge m failed (429): rate limited', 20);
        if (mode === '400') throw new PermanentError('judge m answered 400: bad request');
        if (mode === 'hang') {
          await new Promise((_, reject) => request.signal!.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        }
        await new Promise((r) => setTimeout(r, 5));
        return ok;
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { client, set: (m: typeof mode) => (mode = m), calls: () => calls, maxInFlight: () => maxInFlight };
}

const req = (user: string): JudgeRequest => ({ system: 's', user });

/** `promise` after `ms` of the fake clock has passed: the judge's waits, timeouts and deadlines all run on it. */
async function after<T>(ms: number, promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  await vi.advanceTimersByTimeAsync(ms);
  return promise;
}

describe('resilient judge', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers identical requests once (concurrent ones share the call) and keeps at most `concurrency` calls in flight', async () => {
    const raw = scripted();
    const judge = createResilientJudge(raw.client, OPS, { defaultModel: 'm' });
    const answers = await after(100, Promise.all([req('a'), req('a'), req('b'), req('c'), req('d'), req('e')].map((r) => judge.complete(r))));
    expect(answers.map((a) => a.text)).toEqual(Array(6).fill('[[True]]'));
    expect(raw.calls()).toBe(5);
    expect(raw.maxInFlight()).toBe(2);
    expect(judge.stats().cacheHits).toBe(1);
  });

  it('counts the requests not yet answered: waiting for the rate limit or a slot, and in flight', async () => {
    const raw = scripted();
    const judge = createResilientJudge(raw.client, { ...OPS, ratePerMinute: 6_000 }, { defaultModel: 'm' });
    const pending = ['a', 'b', 'c', 'd'].map((u) => judge.complete(req(u)));
    // The bucket holds 100 tokens, so all four are admitted: two in flight, two waiting for a slot.
    expect([judge.stats().pending, judge.stats().inFlight, judge.stats().waiting]).toEqual([4, 2, 2]);
    await after(100, Promise.all(pending));
    expect([judge.stats().pending, judge.stats().inFlight, judge.stats().waiting]).toEqual([0, 0, 0]);
    // One token a second: the first is in flight, the second holds the other slot waiting for the rate's next token, two wait for a slot.
    const limited = createResilientJudge(raw.client, { ...OPS, ratePerMinute: 60, deadlineMs: 1_900 }, { defaultModel: 'm' });
    const slow = ['e', 'f', 'g', 'h'].map((u) => limited.complete(req(u)).catch((e: Error) => e.message));
    expect([limited.stats().pending, limited.stats().inFlight, limited.stats().waiting]).toEqual([4, 2, 2]);
    // A second later the second gets the next token; the other two would wait past their deadline.
    expect((await after(2_000, Promise.all(slow))).map((m) => (typeof m === 'string' ? 'failed' : m.text)).sort()).toEqual(['[[True]]', '[[True]]', 'failed', 'failed']);
    expect(limited.stats().pending).toBe(0);
  });

  it("serves waiting calls round robin between shares: one project's backlog holds another's call back by one turn", async () => {
    const order: string[] = [];
    const client: JudgeClient = {
      async complete(request: JudgeRequest) {
        order.push(request.user);
        await new Promise((r) => setTimeout(r, 2));
        return ok;
      },
    };
    const judge = createResilientJudge(client, { ...OPS, concurrency: 1 }, { defaultModel: 'm' });
    const flood = ['a1', 'a2', 'a3', 'a4', 'a5'].map((u) => judge.complete({ ...req(u), share: 'a' }));
    const other = judge.complete({ ...req('b1'), share: 'b' });
    await after(100, Promise.all([...flood, other]));
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('retries 429s honouring Retry-After, opens the circuit, fails by the deadline with the reason, then closes on recovery', async () => {
    const raw = scripted();
    const judge = createResilientJudge(raw.client, { ...OPS, cacheEntries: 0 }, { defaultModel: 'm' });
    raw.set('429');
    const started = Date.now();
    await expect(after(1_000, judge.complete(req('x')))).rejects.toThrow(/deadline .*last: judge circuit open after 3 failures in a row \(last: judge m failed \(429\): rate limited\)/);
    expect(Date.now() - started).toBe(1_000);
    expect(judge.stats().circuitOpened).toBeGreaterThanOrEqual(1);
    raw.set('hang');
    await expect(after(1_000, judge.complete(req('y')))).rejects.toThrow(/deadline/);
    raw.set('ok');
    await vi.advanceTimersByTimeAsync(OPS.breakerCooldownMs);
    await expect(after(5, judge.complete(req('z')))).resolves.toMatchObject({ text: '[[True]]' });
    expect(judge.stats().circuit).toBe('closed');
    expect(judge.stats().circuitClosed).toBeGreaterThanOrEqual(1);
  });

  it('a hung call ends at the timeout and is retried; a permanent error is not retried and does not count against the circuit', async () => {
    const raw = scripted();
    let retries = 0;
    const judge = createResilientJudge(raw.client, { ...OPS, cacheEntries: 0, breakerFailures: 100 }, { defaultModel: 'm', onRetry: () => (retries += 1) });
    raw.set('hang');
    await expect(after(1_000, judge.complete(req('h')))).rejects.toThrow(/last: judge call timed out after 100 ms/);
    expect(raw.calls()).toBeGreaterThanOrEqual(5);
    // Every timed-out call is counted as a retry, but the one the deadline cut short (if it cut a call, not a wait).
    expect([raw.calls() - 1, raw.calls()]).toContain(retries);
    raw.set('400');
    const before = raw.calls();
    const retriesBefore = retries;
    await expect(judge.complete(req('p'))).rejects.toThrow(/answered 400/);
    expect(raw.calls() - before).toBe(1);
    expect(retries).toBe(retriesBefore);
  });

  it('a trial call ended by its request deadline frees the half-open circuit for the next call', async () => {
    const raw = scripted();
    const judge = createResilientJudge(raw.client, { ...OPS, cacheEntries: 0, timeoutMs: 5_000, deadlineMs: 300, breakerFailures: 1, breakerCooldownMs: 50 }, { defaultModel: 'm' });
    raw.set('429');
    await expect(after(300, judge.complete(req('a')))).rejects.toThrow(/deadline/);
    expect(judge.stats().circuitOpened).toBeGreaterThanOrEqual(1);
    await vi.advanceTimersByTimeAsync(60);
    raw.set('hang');
    // Admitted as the half-open trial; hangs until the request's own deadline aborts it.
    await expect(after(300, judge.complete(req('b')))).rejects.toThrow(/within its 300 ms deadline/);
    raw.set('ok');
    await expect(after(5, judge.complete(req('c')))).resolves.toEqual(ok);
    expect(judge.stats().circuit).toBe('closed');
  });

  it('a request waiting for a rate-limit token past its deadline fails saying so', async () => {
    const raw = scripted();
    const judge = createResilientJudge(raw.client, { ...OPS, ratePerMinute: 1, deadlineMs: 300 }, { defaultModel: 'm' });
    await after(5, judge.complete(req('first')));
    await expect(after(300, judge.complete(req('second')))).rejects.toThrow(/last: rate limit of 1 calls per minute/);
  });
});
