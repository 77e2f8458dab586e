import { backoffDelayMs, sleepUnlessAborted } from '../../../shared/adapters/bus/index.ts';
import { targetAddress, type AlertPayload, type Delivery, type HttpTarget, type NotifyTarget } from '../../../shared/engines/alerts/index.ts';
import { errorMessage } from '../../../shared/runtime/errors/index.ts';
import { createLimiter, linkAbort, type LinkedAbort } from '../../../shared/runtime/flow/index.ts';
import { EMPTY_ADDRESS_LIST, checkOutboundTarget, createAddressMatcher, pinnedFetch, type OutboundPolicy, type PinnedRequest } from '../../../shared/runtime/http/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { classifyMailError, emailMessage, type SendMail } from './email-message.ts';
import { pagerDutyEvent } from './pagerduty-event.ts';
import { slackMessage } from './slack-message.ts';

export interface DeliveryPolicy {
  /** Tries per target, the first included. */
  attempts: number;
  /** Backoff before the first retry, doubling up to `maxDelayMs` (equal jitter). */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Per request. */
  timeoutMs: number;
  /** A receiver's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = { attempts: 5, initialDelayMs: 500, maxDelayMs: 8_000, timeoutMs: 10_000, maxRetryAfterMs: 60_000 };

/** What one HTTP attempt means for the delivery. */
export type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status?: number; error: string; retryAfterMs?: number }
  | { kind: 'permanent'; status?: number; error: string };

/** `Retry-After` as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** 2xx delivered; 408, 429 and 5xx are worth retrying; any other answer will not change. Pure. */
export function classifyResponse(status: number, retryAfter: string | null, nowMs: number): AttemptResult {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter, nowMs);
    return { kind: 'retry', status, error: `HTTP ${status}`, ...(retryAfterMs !== null ? { retryAfterMs } : {}) };
  }
  return { kind: 'permanent', status, error: `HTTP ${status}` };
}

/** The request body for an HTTP target: the payload itself for a webhook, a Slack message, a PagerDuty event. */
function requestBody(target: HttpTarget, payload: AlertPayload, dedupKey: string, unitLink?: (unitId: string) => string): string {
  if (target.type === 'slack') return JSON.stringify(slackMessage(payload, unitLink));
  if (target.type === 'pagerduty') return JSON.stringify(pagerDutyEvent(target, payload, dedupKey, unitLink));
  return JSON.stringify(payload);
}

/** Sends one request to the address the target's host was checked to resolve to. */
export type Send = (url: string, init: PinnedRequest, target: { address: string; family: 4 | 6 }) => Promise<Response>;

export interface DeliverDeps {
  send: Send;
  /** Which targets may be called: checked before every attempt, so a name re-pointed at a private address (DNS rebinding) is refused. */
  outbound: OutboundPolicy;
  policy: DeliveryPolicy;
  /** Aborts waits and requests at shutdown. */
  signal: AbortSignal;
  now: () => number;
  random?: () => number;
  unitLink?: (unitId: string) => string;
  /** Sends an email through the operator's SMTP server; absent: email targets fail, saying so. */
  sendMail?: SendMail;
}

async function attemptMail(message: Parameters<SendMail>[0], deps: DeliverDeps): Promise<AttemptResult> {
  if (!deps.sendMail) return { kind: 'permanent', error: 'no SMTP server configured (TRACECHECK_SMTP_URL)' };
  const stop = attemptSignal(deps);
  try {
    await deps.sendMail(message, stop.signal);
    return { kind: 'delivered', status: 250 };
  } catch (err) {
    if (deps.signal.aborted) return { kind: 'permanent', error: 'alerter stopped before delivery' };
    return classifyMailError(err);
  } finally {
    stop.release();
  }
}

/** Ends an attempt at shutdown or after the policy's timeout; released when the attempt ends, so the alerter's long-lived signal keeps nothing per attempt. */
function attemptSignal(deps: DeliverDeps): LinkedAbort {
  return linkAbort(deps.signal, AbortSignal.timeout(deps.policy.timeoutMs));
}

async function attempt(target: HttpTarget, body: string, deps: DeliverDeps): Promise<AttemptResult> {
  const checked = await checkOutboundTarget(target.url, deps.outbound);
  // A name that does not resolve may come back; a forbidden address will not, unless the operator allows it.
  if (!checked.ok) return checked.unresolved ? { kind: 'retry', error: checked.reason } : { kind: 'permanent', error: `refused: ${checked.reason}` };
  const stop = attemptSignal(deps);
  try {
    const init: PinnedRequest = {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tracecheck-alerter' },
      body,
      signal: stop.signal,
    };
    const res = await deps.send(target.url, init, checked);
    // Free the connection; the answer's body does not matter.
    await res.body?.cancel().catch(() => {});
    return classifyResponse(res.status, res.headers.get('retry-after'), deps.now());
  } catch (err) {
    if (deps.signal.aborted) return { kind: 'permanent', error: 'alerter stopped before delivery' };
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    // Network errors (refused, reset, DNS) and timeouts may pass; retry them.
    return { kind: 'retry', error: timedOut ? `no answer within ${deps.policy.timeoutMs} ms` : causeMessage(err) };
  } finally {
    stop.release();
  }
}

/** fetch reports every network failure as "fetch failed"; the reason is in its cause. */
function causeMessage(err: unknown): string {
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  return cause ? `${errorMessage(err)}: ${errorMessage(cause)}` : errorMessage(err);
}

/**
 * Delivers one notification to one target, retrying with backoff; never throws. `dedupKey` names
 * the alert's episode (PagerDuty's trigger and resolve carry the same one).
 */
export async function deliver(target: NotifyTarget, payload: AlertPayload, deps: DeliverDeps, dedupKey = payload.rule): Promise<Delivery> {
  const once =
    target.type === 'email'
      ? ((message) => () => attemptMail(message, deps))(emailMessage(target, payload, deps.unitLink))
      : ((body) => () => attempt(target, body, deps))(requestBody(target, payload, dedupKey, deps.unitLink));
  let last: AttemptResult = { kind: 'permanent', error: 'not attempted' };
  let attempts = 0;
  for (let i = 0; i < deps.policy.attempts; i++) {
    attempts++;
    last = await once();
    if (last.kind !== 'retry' || i === deps.policy.attempts - 1) break;
    const backoff = backoffDelayMs(i, deps.policy, deps.random);
    const delay = Math.max(backoff, Math.min(last.retryAfterMs ?? 0, deps.policy.maxRetryAfterMs));
    if (!(await sleepUnlessAborted(delay, deps.signal))) {
      last = { kind: 'permanent', ...(last.status !== undefined ? { status: last.status } : {}), error: `alerter stopped while retrying (${last.error})` };
      break;
    }
  }
  return {
    type: target.type,
    url: targetAddress(target),
    outcome: last.kind === 'delivered' ? 'delivered' : 'failed',
    attempts,
    ...(last.status !== undefined ? { status: last.status } : {}),
    ...(last.kind !== 'delivered' ? { error: last.error } : {}),
    at_ms: deps.now(),
  };
}

interface NotificationJob {
  targets: readonly NotifyTarget[];
  payload: AlertPayload;
  /** Names the alert's episode: the same for its firing, reminders and resolution (PagerDuty's `dedup_key`). */
  dedupKey: string;
  /** Called once with every target's outcome (e.g. to record them in the history). */
  onDone(deliveries: Delivery[]): Promise<void>;
}

export interface NotificationQueueOptions {
  log: Logger;
  /** How requests are sent (tests); default: over a connection to the checked address. */
  send?: Send;
  /** Non-public hosts and ranges targets may resolve to (`TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS`); default none. */
  outbound?: OutboundPolicy;
  policy?: Partial<DeliveryPolicy>;
  /** Jobs waiting beyond this are refused (and recorded as failed by the caller). Default 1000. */
  maxQueued?: number;
  /** Jobs delivered at once. Default 4. */
  concurrency?: number;
  now?: () => number;
  random?: () => number;
  unitLink?: (unitId: string) => string;
  sendMail?: SendMail;
  /** How long `shutdown()` lets queued deliveries finish before aborting them. Default 5000. */
  shutdownGraceMs?: number;
}

/** Delivers notifications in the background so that a slow or dead receiver never holds up evaluation. */
export interface NotificationQueue {
  /** False when the queue is full or stopped: the job was not taken. */
  enqueue(job: NotificationJob): boolean;
  /** Jobs queued or being delivered. */
  pending(): number;
  /** Resolves once nothing is queued or in flight. */
  idle(): Promise<void>;
  /**
   * Lets deliveries finish for up to `graceMs` (default: the option `shutdownGraceMs`), then aborts
   * waits and requests; jobs not finished by then are recorded as failed.
   */
  shutdown(graceMs?: number): Promise<void>;
}

export function createNotificationQueue(options: NotificationQueueOptions): NotificationQueue {
  const log = options.log;
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy };
  const maxQueued = options.maxQueued ?? 1_000;
  const concurrency = options.concurrency ?? 4;
  const stop = new AbortController();
  const limiter = createLimiter(concurrency);
  const deps: DeliverDeps = {
    send: options.send ?? pinnedFetch,
    outbound: options.outbound ?? { allow: createAddressMatcher(EMPTY_ADDRESS_LIST) },
    policy,
    signal: stop.signal,
    now: options.now ?? Date.now,
    ...(options.random ? { random: options.random } : {}),
    ...(options.unitLink ? { unitLink: options.unitLink } : {}),
    ...(options.sendMail ? { sendMail: options.sendMail } : {}),
  };

  async function run(job: NotificationJob): Promise<void> {
    const deliveries = await Promise.all(job.targets.map((t) => deliver(t, job.payload, deps, job.dedupKey)));
    for (const d of deliveries) {
      const fields = { rule: job.payload.rule, state: job.payload.state, type: d.type, host: safeHost(d.url), attempts: d.attempts, status: d.status, error: d.error };
      if (d.outcome === 'delivered') log.info(fields, 'notification delivered');
      else log.warn(fields, 'notification failed');
    }
    try {
      await job.onDone(deliveries);
    } catch (err) {
      log.error({ err, rule: job.payload.rule }, 'recording delivery outcome failed');
    }
  }

  return {
    enqueue(job) {
      if (stop.signal.aborted || limiter.waiting() >= maxQueued) return false;
      void limiter.run(() => run(job));
      return true;
    },
    pending: () => limiter.waiting() + limiter.inFlight(),
    idle: () => limiter.idle(),
    async shutdown(graceMs = options.shutdownGraceMs ?? 5_000) {
      if (graceMs > 0 && !stop.signal.aborted) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      stop.abort();
      // Queued jobs run too: with the signal aborted each attempt ends at once, as a recorded failure.
      await this.idle();
    },
  };
}

/** Webhook URLs can carry secrets (Slack's do): logs name only the host (email: the recipients' domains). */
function safeHost(url: string): string {
  if (url.startsWith('mailto:')) return url.slice('mailto:'.length).split(',').map((a) => a.slice(a.indexOf('@') + 1)).join(',');
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}
