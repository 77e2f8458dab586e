import { BusFullError, type Producer } from '../../../shared/adapters/bus/index.ts';
import { errorMessage, isRetriable, RetriableError } from '../../../shared/runtime/errors/index.ts';
import { createSerialQueue } from '../../../shared/runtime/flow/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { ConvertPool } from './convert/convert-pool.ts';
import { conversionOf } from './convert/conversion-of.ts';
import type { PartialSuccess } from './otlp/encode-response.ts';
import { DecodeError, type LazyLogsRequest, type LazyTraceRequest, type OtlpEncoding } from './otlp/types.ts';
import type { ProjectShares } from './project-shares.ts';
import type { Redactor } from './redact/redactor.ts';
import { countLogRecords, countSpans, logsRequestToMessagesInSlices, traceRequestToMessagesInSlices, type Conversion } from './pipeline.ts';

/** Outcome of one export, independent of the transport (HTTP status / gRPC code are mapped from it). */
export type IngestResult =
  | { kind: 'ok'; partial?: PartialSuccess }
  | { kind: 'too_many_items'; message: string }
  | { kind: 'unavailable'; message: string; retryAfterSeconds: number }
  /** The pipeline is behind (the in-process bus is full), or the project is over its share: 429 / RESOURCE_EXHAUSTED + retry later. */
  | { kind: 'busy'; message: string; retryAfterSeconds: number };

/**
 * Checks an export's `Authorization` header (`peer`: the client's address, for throttling) and
 * names its project (undefined: the default one). 503: the keys could not be read (store down);
 * 429: too many failed attempts from this address or with this key prefix. Both ask the client to retry.
 */
export type Authorize = (authorization: string | undefined, peer?: string) => Promise<{ ok: true; project: string | undefined } | AuthRefusal>;

type AuthRefusal = { ok: false; status: 401 | 403 | 503; message: string } | { ok: false; status: 429; message: string; retryAfterSeconds: number };

export interface IngestOptions {
  producer: Producer;
  topic: string;
  maxAttributeBytes: number;
  maxRecordBytes?: number;
  maxSpansPerRequest: number;
  /** See NormalizeOptions.maxFutureSkewMs. */
  maxFutureSkewMs?: number;
  produceTimeoutMs: number;
  retryAfterSeconds: number;
  log: Logger;
  now?: () => number;
  /** Rewrites spans and log records before they are normalized (TRACECHECK_REDACTION); absent: off. */
  redactor?: Redactor;
  /**
   * Converts exports given with their body on worker threads (the pool has its own redactor);
   * absent: on this thread. `onRedactions`: what the pool's redactor found, per rule.
   */
  pool?: ConvertPool;
  onRedactions?: (found: Record<string, number>) => void;
  /** Each project's share of the traces waiting for a root (see project-shares.ts); absent: none (no keys, one sender). */
  shares?: ProjectShares;
  /** The producer hands `parsed` to its consumers (the in-process bus): the pool's records are parsed for it. Default true. */
  parsedRecords?: boolean;
  /**
   * An export was refused (429 or 503) after its conversion, none of it on the bus: the trace ids
   * of its records, so that an assembler in this process closes their root-less parts soon.
   */
  onRefused?: (project: string | undefined, traceIds: ReadonlySet<string>) => void;
}

/** An export's raw body, for a conversion off this thread; `counted` hears how many items it held (metrics). */
export interface ExportBody {
  encoding: OtlpEncoding;
  bytes: Uint8Array;
  counted?: (n: number) => void;
}

export interface Ingest {
  /**
   * `decode`: decodes the export's body (throwing a DecodeError when it cannot); called in the
   * export's turn (see createIngest). `project`: of the sender's ingest key; absent when no keys exist.
   * `body`: the same export undecoded; with a pool, it is converted there and `decode` is not called.
   */
  exportTraces(decode: () => LazyTraceRequest, project?: string, body?: ExportBody): Promise<IngestResult>;
  exportLogs(decode: () => LazyLogsRequest, project?: string, body?: ExportBody): Promise<IngestResult>;
}

class ProduceTimeoutError extends RetriableError {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProduceTimeoutError(`produce not acknowledged within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Normalizes decoded exports and produces them; answers only after the bus acknowledged. */
export function createIngest(options: IngestOptions): Ingest {
  const now = options.now ?? Date.now;
  const log = options.log;

  const normalizeOptions = (project: string | undefined) => ({
    maxAttributeBytes: options.maxAttributeBytes,
    receivedAtMs: now(),
    ...(options.maxRecordBytes !== undefined ? { maxRecordBytes: options.maxRecordBytes } : {}),
    ...(options.maxFutureSkewMs !== undefined ? { maxFutureSkewMs: options.maxFutureSkewMs } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
  });

  // Exports are decoded, converted and handed to the producer one at a time, in the order they
  // arrive: a conversion yields to the event loop between slices of work, and meanwhile the next
  // export waits for its turn, so records reach the bus in the same order as when conversion was
  // one synchronous pass, and at most one decoded export is held beside the raw bodies. Only the
  // acknowledgement is awaited outside the turn, so produce requests still overlap.
  const turns = createSerialQueue();

  /** Starts the produce; the promise never rejects (null: acknowledged, else the error). */
  function startProduce(conversion: Conversion): Promise<unknown> {
    if (conversion.messages.length === 0) return Promise.resolve(null);
    let sending: Promise<void>;
    try {
      sending = options.producer.send(options.topic, conversion.messages);
    } catch (err) {
      sending = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return withTimeout(sending, options.produceTimeoutMs).then(
      () => null,
      (err: unknown) => err ?? new Error('produce failed'),
    );
  }

  const refused = (conversion: Conversion, project: string | undefined): void => {
    if (options.onRefused && conversion.messages.length > 0) options.onRefused(project, new Set(conversion.messages.map((m) => m.key)));
  };

  async function answer(conversion: Conversion, produced: Promise<unknown>, project: string | undefined): Promise<IngestResult> {
    const err = await produced;
    if (err !== null) refused(conversion, project);
    if (err !== null) {
      if (err instanceof BusFullError) {
        log.warn({ topic: options.topic }, 'pipeline behind: answering 429');
        return { kind: 'busy', message: `pipeline behind, retry later: ${err.message}`, retryAfterSeconds: options.retryAfterSeconds };
      }
      // Every produce failure is answered 503: the spans were valid, so a bus that does not take
      // them is downstream trouble from the client's side (a producer that could not even start
      // reports a PermanentError, yet a retry later is exactly right). Record-level rejections
      // (too large) are prevented upstream by maxBodyBytes / maxAttributeBytes.
      const timedOut = err instanceof ProduceTimeoutError;
      if (timedOut || isRetriable(err)) log.warn({ err, topic: options.topic, count: conversion.messages.length }, 'produce failed, answering unavailable');
      else log.error({ err, topic: options.topic, count: conversion.messages.length }, 'produce failed with a non-retriable error, answering unavailable');
      return { kind: 'unavailable', message: `downstream unavailable: ${errorMessage(err)}`, retryAfterSeconds: options.retryAfterSeconds };
    }
    if (conversion.rejected > 0) return { kind: 'ok', partial: { rejected: conversion.rejected, errorMessage: conversion.errorMessage } };
    return { kind: 'ok' };
  }

  type Turn = { kind: 'refused'; result: IngestResult } | { kind: 'converted'; conversion: Conversion; produced: Promise<unknown> };

  /** A converted export is produced, unless it would take its project past its share (429, nothing produced). */
  function produceOrRefuse(conversion: Conversion, project: string | undefined): Turn {
    const refusal = project !== undefined && options.shares ? options.shares.admit(project, conversion) : null;
    if (refusal === null) return { kind: 'converted', conversion, produced: startProduce(conversion) };
    log.debug({ project }, 'project over its share of traces waiting for a root: answering 429');
    refused(conversion, project);
    return { kind: 'refused', result: { kind: 'busy', message: refusal, retryAfterSeconds: options.retryAfterSeconds } };
  }

  async function run(work: () => Promise<Turn>, project: string | undefined): Promise<IngestResult> {
    const done = await turns.run(work);
    return done.kind === 'refused' ? done.result : answer(done.conversion, done.produced, project);
  }

  /**
   * The export converted by the pool: the job starts at once (exports convert side by side on
   * several workers), its records are handed to the producer in the export's turn, as above.
   */
  function runPooled(pool: ConvertPool, signal: 'traces' | 'logs', body: ExportBody, project: string | undefined): Promise<IngestResult> {
    const { redactor: _inThread, ...normalize } = normalizeOptions(project);
    const job = pool.convert({ signal, encoding: body.encoding, bytes: body.bytes, maxItems: options.maxSpansPerRequest, options: normalize }).then(
      (outcome) => ({ outcome }),
      (err: unknown) => ({ err }),
    );
    return run(async () => {
      const done = await job;
      if ('err' in done) {
        log.warn({ err: done.err }, 'export not converted, answering unavailable');
        return { kind: 'refused', result: { kind: 'unavailable', message: `conversion failed, retry later: ${errorMessage(done.err)}`, retryAfterSeconds: options.retryAfterSeconds } };
      }
      const outcome = done.outcome;
      body.counted?.(outcome.received);
      if (outcome.kind === 'decode_error') throw new DecodeError(outcome.message);
      if (outcome.kind === 'failed') throw new Error(outcome.message);
      if (outcome.kind === 'too_many_items') return { kind: 'refused', result: { kind: 'too_many_items', message: outcome.message } };
      if (options.onRedactions) options.onRedactions(outcome.redactions);
      return produceOrRefuse(await conversionOf(outcome, options.parsedRecords ?? true), project);
    }, project);
  }

  return {
    exportTraces(decode, project, body) {
      if (options.pool && body) return runPooled(options.pool, 'traces', body, project);
      const normalize = normalizeOptions(project);
      return run(async () => {
        const req = decode();
        const n = countSpans(req);
        if (n > options.maxSpansPerRequest) {
          return { kind: 'refused', result: { kind: 'too_many_items', message: `${n} spans exceed the limit of ${options.maxSpansPerRequest} per request` } };
        }
        return produceOrRefuse(await traceRequestToMessagesInSlices(req, normalize), project);
      }, project);
    },
    exportLogs(decode, project, body) {
      if (options.pool && body) return runPooled(options.pool, 'logs', body, project);
      const normalize = normalizeOptions(project);
      return run(async () => {
        const req = decode();
        const n = countLogRecords(req);
        if (n > options.maxSpansPerRequest) {
          return { kind: 'refused', result: { kind: 'too_many_items', message: `${n} log records exceed the limit of ${options.maxSpansPerRequest} per request` } };
        }
        return produceOrRefuse(await logsRequestToMessagesInSlices(req, normalize), project);
      }, project);
    },
  };
}
