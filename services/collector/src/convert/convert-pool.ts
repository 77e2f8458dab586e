import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RedactionRule } from '../../../../shared/runtime/config/index.ts';
import { RetriableError } from '../../../../shared/runtime/errors/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import { DEFAULT_REDACTION_KEY, type RedactionConfig } from '../redact/create-redaction.ts';
import type { ConvertJob, ConvertOutcome } from './convert-export.ts';

/** What a conversion worker is started with: the redaction settings, resolved (null: off). */
export interface RedactionWorkerData {
  redaction: { mode: 'detect' | 'redact'; rules: RedactionRule[]; key: string } | null;
}

/** Converts exports on worker threads, so that the main thread only receives ready records. */
export interface ConvertPool {
  /**
   * Starts every worker and resolves once each has loaded its modules (a first export must not wait
   * for that); rejects when one cannot start. Without it, a worker starts at its first job.
   */
  start(): Promise<void>;
  /** The job's bytes are transferred (copied first when they share their memory). Rejects with a RetriableError when the worker stopped. */
  convert(job: ConvertJob): Promise<ConvertOutcome>;
  /** Stops the workers; jobs not yet answered are rejected. */
  shutdown(): Promise<void>;
}

export interface ConvertPoolOptions {
  size: number;
  redaction?: RedactionConfig;
  log: Logger;
  /** Starts one worker; default startConvertWorker (tests start one that fails). */
  startWorker?: (data: RedactionWorkerData) => Worker;
}

// The worker beside this file: convert-worker.ts in the sources (run through tsx), .js in dist/.
const EXT = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./convert-worker${EXT}`, import.meta.url);

/**
 * The compiled worker as it is; the sources' one through tsx (always installed in a checkout),
 * registered inside the worker: a worker does not inherit the loader the main thread registered.
 */
export function startConvertWorker(workerData: RedactionWorkerData): Worker {
  if (EXT !== '.ts') return new Worker(WORKER_URL, { workerData });
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const source = `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(fileURLToPath(WORKER_URL))});`;
  return new Worker(source, { eval: true, workerData });
}

interface Pending {
  resolve(outcome: ConvertOutcome): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker | null;
  /** Resolves when the worker has loaded its modules; rejects when it stopped before. */
  ready: Promise<void>;
  pending: Map<number, Pending>;
}

/** Bytes that can be transferred without detaching memory anything else uses (Node's small Buffers share a pool). */
function ownBytes(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  return whole ? bytes : new Uint8Array(bytes);
}

/**
 * `size` workers, each answering its jobs in the order given. With redaction on, the pool has one
 * worker at most: a trace's placeholders are numbered by one redactor across its exports.
 */
export function createConvertPool(options: ConvertPoolOptions): ConvertPool {
  const log = options.log;
  const redaction = options.redaction && options.redaction.mode !== 'off' ? { mode: options.redaction.mode, rules: [...options.redaction.rules], key: options.redaction.key ?? DEFAULT_REDACTION_KEY } : null;
  const size = redaction ? Math.min(1, options.size) : options.size;
  const data: RedactionWorkerData = { redaction };
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: null, ready: Promise.resolve(), pending: new Map() }));
  let nextId = 1;
  let stopping = false;

  function lost(slot: Slot, worker: Worker, reason: string, wasReady: boolean): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    if (!stopping) log.warn({ reason, pending: slot.pending.size }, 'conversion worker stopped; its exports are answered 503 and the worker replaced');
    const err = new RetriableError(`conversion worker stopped: ${reason}`);
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
    // One that had started is replaced at once; one that never started, at the next job (no spin).
    if (wasReady && !stopping) start(slot);
  }

  function start(slot: Slot): Worker {
    const worker = (options.startWorker ?? startConvertWorker)(data);
    worker.unref();
    let ready = false;
    let readyNow: () => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    slot.ready = new Promise<void>((resolve, reject) => {
      readyNow = resolve;
      failed = reject;
    });
    // Awaited only by start(); a worker lost later must not be an unhandled rejection.
    slot.ready.catch(() => undefined);
    worker.on('message', (message: { ready: true } | { id: number; outcome: ConvertOutcome }) => {
      if ('ready' in message) {
        ready = true;
        readyNow();
        return;
      }
      const p = slot.pending.get(message.id);
      if (!p) return;
      slot.pending.delete(message.id);
      p.resolve(message.outcome);
    });
    const stopped = (reason: string): void => {
      failed(new Error(`conversion worker stopped before it started: ${reason}`));
      lost(slot, worker, reason, ready);
    };
    worker.on('error', (err) => stopped(err.message));
    worker.on('exit', (code) => stopped(`exited with code ${code}`));
    slot.worker = worker;
    return worker;
  }

  function leastBusy(): Slot {
    let best = slots[0];
    for (const slot of slots) if (slot.pending.size < best.pending.size) best = slot;
    return best;
  }

  return {
    async start() {
      await Promise.all(slots.map((slot) => (slot.worker ?? start(slot), slot.ready)));
    },
    convert(job) {
      if (stopping) return Promise.reject(new RetriableError('the collector is stopping'));
      const slot = leastBusy();
      const worker = slot.worker ?? start(slot);
      const id = nextId++;
      const bytes = ownBytes(job.bytes);
      return new Promise<ConvertOutcome>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        try {
          worker.postMessage({ id, job: { ...job, bytes } }, [bytes.buffer as ArrayBuffer]);
        } catch (err) {
          slot.pending.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
    async shutdown() {
      stopping = true;
      await Promise.all(slots.map((slot) => (slot.worker ? slot.worker.terminate() : Promise.resolve(0))));
    },
  };
}
