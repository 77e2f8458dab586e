import type { Producer } from '../../../shared/adapters/bus/index.ts';
import { DEFAULT_MAX_RECORD_BYTES } from '../../../shared/runtime/config/index.ts';
import { errorMessage } from '../../../shared/runtime/errors/index.ts';
import type { Component } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { AddressMatcher } from '../../../shared/runtime/http/index.ts';
import { createAdmission } from './admission.ts';
import { createGrpcReceiver } from './grpc/grpc-server.ts';
import { createHttpReceiver } from './http/http-server.ts';
import { throttleFailedAuth } from './auth-throttle.ts';
import { createIngest, type Authorize, type IngestOptions } from './ingest.ts';
import { withLangfuseKeys } from './langfuse-door.ts';
import type { LangfuseKeyPair } from '../../../shared/runtime/config/index.ts';
import { createProjectShares, type ProjectShareLimits } from './project-shares.ts';
import { withIngestMetrics } from './ingest-metrics.ts';
import { createConvertPool } from './convert/convert-pool.ts';
import { createRedaction, redactionCounter, type RedactionConfig } from './redact/create-redaction.ts';
import type { Redactor } from './redact/redactor.ts';
import type { MetricsAccess } from '../../../shared/kit/access/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';

export interface CollectorLimits {
  /** Request body cap, checked before and after decompression (default 20 MiB). */
  maxBodyBytes: number;
  /** Per-attribute value cap; longer values are cut and the span flagged `genai.truncated`. */
  maxAttributeBytes: number;
  /** Spans (or log records) per export; more → 413 (HTTP) / RESOURCE_EXHAUSTED (gRPC). */
  maxSpansPerRequest: number;
  /** Concurrent exports (HTTP and gRPC together) before 429 / RESOURCE_EXHAUSTED (default 64). */
  maxInFlightRequests?: number;
  /** Bytes of concurrent exports before 429: declared, raised to what is read and decompressed (default 256 MiB). */
  maxInFlightBytes?: number;
  /**
   * The share of both in-flight limits one ingest key (one Authorization header) may hold when
   * keys are in use: 64 slow uploads with one key cannot hold every slot (default 1/4).
   */
  inFlightShareOfKey?: number;
  /** Largest bus record: longer envelopes have their contents cut to fit (default 1,000,000 bytes). */
  maxRecordBytes?: number;
  /** How far a span's time may lie ahead of the collector's clock; later spans are rejected alone (default 1 h). */
  maxFutureSkewMs?: number;
}

interface CollectorConfig {
  host: string;
  /** 0 picks a free port (tests). */
  httpPort: number;
  /** 0 picks a free port. */
  grpcPort: number;
  limits: CollectorLimits;
  /** Bus topic for span envelopes (default `tracecheck.spans`). */
  topic?: string;
  /** How long to wait for the bus to acknowledge before answering 503 (default 10 s). */
  produceTimeoutMs?: number;
  /** Retry-After seconds on 429/503 (default 5). */
  retryAfterSeconds?: number;
  /** What is found and replaced in spans and log records before they reach the bus; absent: off. */
  redaction?: RedactionConfig;
  /**
   * Worker threads that decode, redact, normalize and serialize exports (TRACECHECK_COLLECTOR_WORKERS);
   * 0 or absent: on the main thread. At most 1 while redaction is on (see createConvertPool).
   */
  workers?: number;
  /** The bus hands OutgoingMessage.parsed to its consumers (the in-process bus); default true. */
  parsedRecords?: boolean;
  /** Proxies whose X-Forwarded-For names the client, for throttling failed keys (TRACECHECK_TRUSTED_PROXIES). */
  trustedProxies?: AddressMatcher;
  /**
   * Each project's share of the traces waiting for a root span: an export that would take its
   * project past it is answered 429 (see project-shares.ts). Applies once keys are in use (with
   * none, every export is the one sender's). Absent: no share.
   */
  projectShares?: ProjectShareLimits;
  /** Langfuse SDK key pairs taken as these ingest keys on `/api/public/otel/v1/traces` and everywhere (TRACECHECK_LANGFUSE_KEYS). */
  langfuseKeys?: readonly LangfuseKeyPair[];
}

export interface CollectorOptions {
  config: CollectorConfig;
  /** Started and stopped by the caller; the collector only sends. */
  producer: Producer;
  /** Checks each export's credentials (API keys); absent: open, everything in the default project. */
  authorize?: Authorize;
  /** Counts spans received, accepted and rejected; the OTLP/HTTP receiver serves them at GET /metrics. */
  metrics?: Metrics;
  /** See IngestOptions.onRefused: the trace ids of an export refused (429 or 503), for an assembler in this process. */
  onRefused?: IngestOptions['onRefused'];
  /** Who may read GET /metrics (once API keys exist, the operator's token only); absent: anyone. */
  metricsAccess?: MetricsAccess;
  log: Logger;
}

export type Collector = Component & {
  /** `http://host:port` of the OTLP/HTTP receiver (after start). */
  httpAddress(): string;
  /** `host:port` of the OTLP/gRPC receiver (after start). */
  grpcAddress(): string;
};

/** Room kept in the bus's record limit for the record's key (a trace id, 32 characters). */
const KEY_ROOM_BYTES = 256;
/** Never below this, whatever a broker says (a record cut smaller keeps nothing of its content). */
const MIN_RECORD_BYTES = 4_096;

const COLLECTOR_DEFAULTS = {
  topic: 'tracecheck.spans',
  produceTimeoutMs: 10_000,
  retryAfterSeconds: 5,
  maxInFlightRequests: 64,
  maxInFlightBytes: 256 * 1024 * 1024,
  maxFutureSkewMs: 60 * 60 * 1000,
  inFlightShareOfKey: 0.25,
} as const;

/** OTLP receivers (HTTP and gRPC) that normalize GenAI spans and produce them keyed by trace id. */
export function createCollector(options: CollectorOptions): Collector {
  const { config } = options;
  const log = options.log.child({ component: 'collector' });
  const retryAfterSeconds = config.retryAfterSeconds ?? COLLECTOR_DEFAULTS.retryAfterSeconds;
  const topic = config.topic ?? COLLECTOR_DEFAULTS.topic;
  // Lowered at start to what the bus can ever send to the topic (the broker's and the topic's
  // limits): a record between the two would be acknowledged and then dead-lettered.
  let maxRecordBytes = config.limits.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const pool = config.workers ? createConvertPool({ size: config.workers, ...(config.redaction ? { redaction: config.redaction } : {}), log }) : undefined;
  const counter = pool && options.metrics && config.redaction && config.redaction.mode !== 'off' ? redactionCounter(options.metrics) : undefined;
  const mode = config.redaction?.mode;
  const plainIngest = createIngest({
    producer: options.producer,
    topic,
    maxAttributeBytes: config.limits.maxAttributeBytes,
    // Read at every export, so that the limit found at start applies.
    get maxRecordBytes() {
      return maxRecordBytes;
    },
    maxSpansPerRequest: config.limits.maxSpansPerRequest,
    maxFutureSkewMs: config.limits.maxFutureSkewMs ?? COLLECTOR_DEFAULTS.maxFutureSkewMs,
    produceTimeoutMs: config.produceTimeoutMs ?? COLLECTOR_DEFAULTS.produceTimeoutMs,
    retryAfterSeconds,
    log,
    ...redactorOption(config.redaction, options.metrics),
    ...(pool ? { pool } : {}),
    ...(config.projectShares && options.authorize ? { shares: createProjectShares(config.projectShares) } : {}),
    ...(config.parsedRecords !== undefined ? { parsedRecords: config.parsedRecords } : {}),
    ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    ...(counter ? { onRedactions: (found: Record<string, number>) => {
      for (const [rule, n] of Object.entries(found)) counter.inc({ rule, mode }, n);
    } } : {}),
  });
  const ingest = options.metrics ? withIngestMetrics(plainIngest, options.metrics) : plainIngest;
  // Mapped Langfuse pairs are checked even with no keyring (a wrong pair is 401 there too).
  const langfuseKeys = config.langfuseKeys ?? [];
  const keyed = options.authorize ?? (langfuseKeys.length > 0 ? openProject : undefined);
  const authorize = keyed ? throttleFailedAuth(answerUnavailableOnError(withLangfuseKeys(keyed, langfuseKeys), log)) : undefined;
  const maxRequests = config.limits.maxInFlightRequests ?? COLLECTOR_DEFAULTS.maxInFlightRequests;
  const maxBytes = config.limits.maxInFlightBytes ?? COLLECTOR_DEFAULTS.maxInFlightBytes;
  // Without keys every export is one sender's: no share to keep.
  const share = options.authorize ? (config.limits.inFlightShareOfKey ?? COLLECTOR_DEFAULTS.inFlightShareOfKey) : 1;
  const admission = createAdmission({
    maxRequests,
    maxBytes,
    maxRequestsPerKey: Math.max(1, Math.floor(maxRequests * share)),
    maxBytesPerKey: Math.max(1, Math.floor(maxBytes * share)),
  });
  const http = createHttpReceiver({
    host: config.host,
    port: config.httpPort,
    maxBodyBytes: config.limits.maxBodyBytes,
    admission,
    retryAfterSeconds,
    ingest,
    ...(authorize ? { authorize } : {}),
    ...(config.trustedProxies ? { trustedProxies: config.trustedProxies } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.metricsAccess ? { metricsAccess: options.metricsAccess } : {}),
    log,
  });
  const grpc = createGrpcReceiver({
    host: config.host,
    port: config.grpcPort,
    maxMessageBytes: config.limits.maxBodyBytes,
    ingest,
    admission,
    retryAfterSeconds,
    ...(authorize ? { authorize } : {}),
    ...(config.trustedProxies ? { trustedProxies: config.trustedProxies } : {}),
    log,
  });
  let started = false;
  let stopping: Promise<void> | null = null;
  return {
    name: 'collector',
    async start() {
      const busMax = await options.producer.maxRecordBytes?.(topic);
      if (busMax !== undefined && busMax - KEY_ROOM_BYTES < maxRecordBytes) {
        maxRecordBytes = Math.max(MIN_RECORD_BYTES, busMax - KEY_ROOM_BYTES);
        log.info({ topic, maxRecordBytes, configured: config.limits.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES }, "records are cut to fit the bus's limit for the spans topic (under TRACECHECK_MAX_RECORD_BYTES)");
      }
      await pool?.start();
      await http.start();
      try {
        await grpc.start();
      } catch (err) {
        await http.stop();
        throw err;
      }
      started = true;
    },
    shutdown() {
      stopping ??= (started ? Promise.all([http.stop(), grpc.stop()]).then(() => undefined) : Promise.resolve()).then(() => pool?.shutdown());
      return stopping;
    },
    httpAddress: () => http.address(),
    grpcAddress: () => grpc.address(),
  };
}

const openProject: Authorize = () => Promise.resolve({ ok: true, project: undefined });

function redactorOption(config: RedactionConfig | undefined, metrics: Metrics | undefined): { redactor?: Redactor } {
  const redactor = config ? createRedaction(config, metrics) : undefined;
  return redactor ? { redactor } : {};
}

/**
 * Keys that cannot be read (the store is down and none were read before) are no reason to lose
 * spans: the export is answered 503 + Retry-After, which exporters retry, never 500, which they drop.
 */
function answerUnavailableOnError(authorize: Authorize, log: Logger): Authorize {
  return async (header, peer) => {
    try {
      return await authorize(header, peer);
    } catch (err) {
      log.warn({ err }, 'API keys could not be read; answering 503');
      return { ok: false, status: 503, message: `API keys unavailable, retry later: ${errorMessage(err)}` };
    }
  };
}
