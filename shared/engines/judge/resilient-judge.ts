import type { Logger } from 'pino';
import { backoffDelayMs, sleepUnlessAborted, type BackoffPolicy } from '../../adapters/bus/index.ts';
import type { JudgeClient, JudgeRequest, JudgeResponse } from '../checks/index.ts';
import { errorMessage, isRetriable } from '../../runtime/errors/index.ts';
import { createBreaker, createFairLimiter, type BreakerRefusal, type BreakerState } from '../../runtime/flow/index.ts';
import { createJudgeCache, judgeRequestKey } from './judge-cache.ts';
import { JudgeRetriableError } from './judge-error.ts';
import { createTokenBucket } from './token-bucket.ts';

export interface JudgeOperations {
  /** Calls in flight at once (the rest wait, within their deadline). */
  concurrency: number;
  /** Calls started per minute, all callers together (a token bucket). */
  ratePerMinute: number;
  /** One HTTP call's limit. */
  timeoutMs: number;
  /** A request's whole life (waits, retries, backoff): after it, the request fails with the last reason. */
  deadlineMs: number;
  /** Failures in a row that open the circuit, and how long it stays open. */
  breakerFailures: number;
  breakerCooldownMs: number;
  /** Identical requests answered from memory (0: no cache). */
  cacheEntries: number;
  backoff?: BackoffPolicy;
}

interface JudgeStats {
  requests: number;
  calls: number;
  failures: number;
  cacheHits: number;
  circuit: BreakerState;
  circuitOpened: number;
  circuitClosed: number;
  inFlight: number;
  /** Calls waiting for a slot of the pool. */
  waiting: number;
  /** Requests not answered yet: waiting for the rate limit, the circuit, a backoff or a slot, or in flight. */
  pending: number;
}

export type ResilientJudge = JudgeClient & { stats(): JudgeStats };

/**
 * Wraps a raw judge (one HTTP call, no retries of its own) with the operations every judge call
 * goes through: cache → deadline → [circuit breaker → rate limit → bounded pool → timeout] with
 * retries and backoff (Retry-After honoured) between attempts. Every request ends, by its deadline
 * at the latest, with an answer or an error naming why.
 */
export function createResilientJudge(raw: JudgeClient, ops: JudgeOperations, deps: { defaultModel: string; log?: Logger; now?: () => number; onRetry?: () => void }): ResilientJudge {
  const now = deps.now ?? Date.now;
  const backoff = ops.backoff ?? { initialDelayMs: 250, maxDelayMs: 10_000 };
  // Fair between shares (projects): a slot is taken before the rate's token and held while waiting
  // for it, so the calls waiting for the rate are the few holding slots, taken in turn.
  const pool = createFairLimiter(ops.concurrency);
  const bucket = createTokenBucket({ ratePerMinute: ops.ratePerMinute, now });
  const breaker = createBreaker({
    failureThreshold: ops.breakerFailures,
    cooldownMs: ops.breakerCooldownMs,
    now,
    onChange: (state, reason) => deps.log?.warn({ state, reason }, 'judge circuit changed state'),
  });
  const cache = createJudgeCache(ops.cacheEntries);
  let requests = 0;
  let calls = 0;
  let failures = 0;
  let pending = 0;

  async function oneCall(request: JudgeRequest, deadline: AbortSignal): Promise<JudgeResponse> {
    // A timer rather than AbortSignal.timeout, so that the call's timeout runs on the same clock as the deadline.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ops.timeoutMs);
    calls += 1;
    try {
      return await raw.complete({ ...request, signal: AbortSignal.any([deadline, timeout.signal]) });
    } catch (err) {
      if (timeout.signal.aborted && !deadline.aborted) throw new JudgeRetriableError(`judge call timed out after ${ops.timeoutMs} ms`, null, { cause: err });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async function withRetries(request: JudgeRequest): Promise<JudgeResponse> {
    const started = now();
    pending += 1;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new JudgeRetriableError(`no judge answer within ${ops.deadlineMs} ms`)), ops.deadlineMs);
    let attempts = 0;
    let last = 'none';
    try {
      for (;;) {
        let waitMs: number;
        let release: () => void;
        try {
          release = await pool.acquire(request.share ?? '', controller.signal);
        } catch {
          throw deadlineError(started, attempts, last);
        }
        try {
          const refused = breaker.admit();
          if (refused) {
            last = refusalReason(refused);
            waitMs = refused.retryInMs;
          } else {
            let tokenInMs = bucket.tryTake();
            while (tokenInMs > 0) {
              last = last === 'none' ? `rate limit of ${ops.ratePerMinute} calls per minute` : last;
              if (now() + tokenInMs >= started + ops.deadlineMs || !(await sleepUnlessAborted(tokenInMs, controller.signal))) {
                breaker.release();
                throw deadlineError(started, attempts, last);
              }
              tokenInMs = bucket.tryTake();
            }
            attempts += 1;
            try {
              const answer = await oneCall(request, controller.signal);
              breaker.success();
              return answer;
            } catch (err) {
              if (controller.signal.aborted) {
                // Its deadline ended the call: the outcome is unknown, and a half-open circuit's
                // trial slot must be freed, or every later call would be refused as "a trial call
                // is in flight" for good.
                breaker.release();
                throw deadlineError(started, attempts, last);
              }
              if (!isRetriable(err)) {
                breaker.release();
                throw err;
              }
              failures += 1;
              deps.onRetry?.();
              last = errorMessage(err);
              breaker.failure(last);
              const hinted = err instanceof JudgeRetriableError ? err.retryAfterMs : null;
              waitMs = hinted ?? backoffDelayMs(attempts - 1, backoff);
            }
          }
        } finally {
          // Backoff and an open circuit are waited out without the slot.
          release();
        }
        if (now() + waitMs >= started + ops.deadlineMs) throw deadlineError(started, attempts, last);
        if (!(await sleepUnlessAborted(waitMs, controller.signal))) throw deadlineError(started, attempts, last);
      }
    } finally {
      clearTimeout(timer);
      pending -= 1;
    }
  }

  function refusalReason(r: BreakerRefusal): string {
    return r.state === 'open'
      ? `judge circuit open after ${ops.breakerFailures} failures in a row (last: ${r.lastReason})`
      : `judge circuit half-open, a trial call is in flight (last failure: ${r.lastReason})`;
  }

  function deadlineError(started: number, attempts: number, last: string): JudgeRetriableError {
    return new JudgeRetriableError(`judge gave no answer within its ${ops.deadlineMs} ms deadline (${attempts} attempts over ${now() - started} ms); last: ${last}`);
  }

  return {
    complete(request: JudgeRequest): Promise<JudgeResponse> {
      requests += 1;
      return cache.get(judgeRequestKey(request, deps.defaultModel), () => withRetries(request));
    },
    stats: () => ({
      requests,
      calls,
      failures,
      cacheHits: cache.hits(),
      circuit: breaker.state(),
      circuitOpened: breaker.counts().opened,
      circuitClosed: breaker.counts().closed,
      inFlight: pool.inFlight(),
      waiting: pool.waiting(),
      pending,
    }),
  };
}
