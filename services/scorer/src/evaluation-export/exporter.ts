import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import type { EvaluationExportStatus, Metrics } from '../../../../shared/kit/metrics/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import { encodeEvaluationRequest, evaluationRecord, type EvaluationRecord } from './encode-evaluations.ts';
import type { OtlpSender } from './send-otlp.ts';

export interface EvaluationExporterOptions {
  sender: OtlpSender;
  /** For the status: the protocol and where records go (no credentials: the path and host only). */
  protocol: string;
  endpoint: string;
  /** Records waiting, at most; past it the oldest are dropped (counted). */
  maxQueue: number;
  /** Records per export. Default 512 (the OpenTelemetry SDKs' batch size). */
  maxBatch?: number;
  /** A batch smaller than maxBatch waits this long for company. Default 1 s. */
  flushDelayMs?: number;
  /** The first retry's wait, doubled each time up to maxBackoffMs; a batch is given up after maxAttempts. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  maxAttempts?: number;
  /** What our records' resource says: `service.name`. */
  resource: { serviceName: string };
  metrics?: Metrics;
  log: Logger;
  nowMs?: () => number;
}

export interface EvaluationExporter {
  /** Queues the scores of `unit` to be sent; returns at once, whatever the receiver is doing. */
  add(unit: Unit, scores: readonly Score[]): void;
  status(): EvaluationExportStatus;
  /** Resolves when nothing is queued or being sent (tests). */
  idle(): Promise<void>;
  /** Sends what is queued without waiting for company, retrying until `deadlineMs` from now at most, then stops. */
  close(deadlineMs: number): Promise<void>;
}

/** The endpoint as the status shows it: no user, password or query (they may hold a key). */
function shownEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * Every score written also goes out as a `gen_ai.evaluation.result` log record: queued in memory
 * (bounded), sent in batches by one sender at a time, retried with exponential backoff on what
 * OTLP calls retryable. Nothing here is awaited by scoring: a receiver that is down costs queued
 * records (dropped past the bound, given up after the attempts), each counted, never a held unit.
 * Records are held in memory only: what is queued when the process dies is not sent.
 */
export function createEvaluationExporter(o: EvaluationExporterOptions): EvaluationExporter {
  const log = o.log.child({ component: 'evaluation-export' });
  const now = o.nowMs ?? Date.now;
  const maxBatch = o.maxBatch ?? 512;
  const flushDelayMs = o.flushDelayMs ?? 1_000;
  const initialBackoffMs = o.initialBackoffMs ?? 1_000;
  const maxBackoffMs = o.maxBackoffMs ?? 30_000;
  const maxAttempts = o.maxAttempts ?? 6;
  const queue: EvaluationRecord[] = [];
  const counts = { sent: 0, rejected: 0, failed: 0, dropped: 0, retries: 0 };
  let lastError: { message: string; at_ms: number } | null = null;
  let sending: Promise<void> | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  let deadlineAt: number | null = null;
  let wake: (() => void) | null = null;
  const idleWaiters: Array<() => void> = [];

  const count = (outcome: keyof typeof counts, n: number): void => {
    if (n <= 0) return;
    counts[outcome] += n;
    if (outcome === 'retries') o.metrics?.evaluationExportRetries.inc(n);
    else o.metrics?.evaluationExportRecords.inc({ outcome }, n);
  };
  const queued = (): void => o.metrics?.evaluationExportQueued.set(queue.length);

  function failed(n: number, message: string): void {
    count('failed', n);
    lastError = { message, at_ms: now() };
  }

  /** Waits `ms`, or less when closing (the deadline) ; false: the deadline has passed. */
  async function pause(ms: number): Promise<boolean> {
    const wait = deadlineAt === null ? ms : Math.min(ms, deadlineAt - now());
    if (wait <= 0) return false;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        wake = null;
        resolve();
      }, wait);
      wake = () => {
        clearTimeout(t);
        wake = null;
        resolve();
      };
    });
    return deadlineAt === null || now() < deadlineAt;
  }

  async function deliver(batch: EvaluationRecord[]): Promise<void> {
    const body = encodeEvaluationRequest(batch, o.resource);
    for (let attempt = 1; ; attempt++) {
      const outcome = await o.sender.send(body);
      if (outcome.kind === 'sent') {
        count('sent', batch.length - outcome.rejected);
        if (outcome.rejected > 0) {
          count('rejected', outcome.rejected);
          lastError = { message: `the receiver rejected ${outcome.rejected} of ${batch.length} records`, at_ms: now() };
        }
        return;
      }
      if (outcome.kind === 'permanent' || attempt >= maxAttempts) {
        log.warn({ error: outcome.error, records: batch.length, attempts: attempt }, 'evaluation records not sent: given up');
        failed(batch.length, outcome.error);
        return;
      }
      lastError = { message: outcome.error, at_ms: now() };
      if (!(await pause(Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1))))) {
        failed(batch.length, `${outcome.error} (not sent before shutdown)`);
        return;
      }
      count('retries', 1);
      log.debug({ error: outcome.error, attempt }, 'evaluation records: retrying');
    }
  }

  function pump(): void {
    if (sending) return;
    if (queue.length === 0) {
      for (const w of idleWaiters.splice(0)) w();
      return;
    }
    if (queue.length < maxBatch && deadlineAt === null) {
      flushTimer ??= setTimeout(() => {
        flushTimer = null;
        drainOnce();
      }, flushDelayMs);
      return;
    }
    drainOnce();
  }

  function drainOnce(): void {
    if (sending || queue.length === 0) return pump();
    if (deadlineAt !== null && now() >= deadlineAt) {
      failed(queue.splice(0).length, 'not sent before shutdown');
      queued();
      return pump();
    }
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const batch = queue.splice(0, maxBatch);
    queued();
    sending = deliver(batch)
      .catch((err: unknown) => failed(batch.length, err instanceof Error ? err.message : String(err)))
      .finally(() => {
        sending = null;
        // What is left goes at once: it has waited for this batch already.
        if (queue.length >= maxBatch || deadlineAt !== null) drainOnce();
        else pump();
      });
  }

  return {
    add(unit, scores) {
      for (const s of scores) queue.push(evaluationRecord(unit, s));
      const over = queue.length - o.maxQueue;
      if (over > 0) {
        queue.splice(0, over);
        count('dropped', over);
        lastError = { message: `${over} records dropped: more than ${o.maxQueue} waiting (TRACECHECK_EXPORT_OTLP_MAX_QUEUE)`, at_ms: now() };
      }
      queued();
      pump();
    },
    status: () => ({ protocol: o.protocol, endpoint: shownEndpoint(o.endpoint), ...counts, queued: queue.length, last_error: lastError?.message ?? null, last_error_at_ms: lastError?.at_ms ?? null }),
    idle: () => (queue.length === 0 && !sending ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    async close(deadlineMs) {
      deadlineAt = now() + deadlineMs;
      // A batch waiting out its backoff tries again now, within the deadline.
      wake?.();
      drainOnce();
      while (sending) {
        const s: Promise<void> = sending;
        await s;
      }
      if (queue.length > 0) failed(queue.splice(0).length, 'not sent before shutdown');
      queued();
      o.sender.close();
    },
  };
}
