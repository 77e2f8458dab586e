import * as grpc from '@grpc/grpc-js';
import type { EvaluationExportConfig } from '../../../../shared/runtime/config/index.ts';
import { rejectedRecords } from './encode-evaluations.ts';

/**
 * What became of one export: `sent` (with the records the receiver said it rejected), or a failure
 * that is worth retrying (the receiver or the network is down, busy or slow) or is not (a refused
 * key, a wrong path, a body it cannot read).
 */
export type SendOutcome = { kind: 'sent'; rejected: number } | { kind: 'retriable' | 'permanent'; error: string };

/** Sends one encoded ExportLogsServiceRequest. */
export interface OtlpSender {
  send(body: Uint8Array): Promise<SendOutcome>;
  close(): void;
}

// OTLP/HTTP: "429, 502, 503 and 504 are retryable"; everything else an error is not.
const RETRIABLE_HTTP = new Set([429, 502, 503, 504]);
// OTLP/gRPC: the codes the specification names retryable.
const RETRIABLE_GRPC = new Set([grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED, grpc.status.OUT_OF_RANGE, grpc.status.UNAVAILABLE, grpc.status.DATA_LOSS]);
const LOGS_EXPORT = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

/** The URL an OTLP/HTTP logs export goes to: the endpoint's own path when it names one ending in /v1/logs, else `/v1/logs` added. */
function logsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/logs')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/logs`;
  return url.toString();
}

function httpSender(config: EvaluationExportConfig): OtlpSender {
  const url = logsUrl(config.endpoint);
  return {
    async send(body) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { ...config.headers, 'content-type': 'application/x-protobuf' },
          body,
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (err) {
        return { kind: 'retriable', error: `POST ${url}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}` };
      }
      const answer = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
      if (res.ok) return { kind: 'sent', rejected: rejectedRecords(answer) };
      const kind = RETRIABLE_HTTP.has(res.status) ? 'retriable' : 'permanent';
      return { kind, error: `POST ${url}: HTTP ${res.status}` };
    },
    close() {},
  };
}

function grpcSender(config: EvaluationExportConfig): OtlpSender {
  const url = new URL(config.endpoint);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const credentials = url.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const client = new grpc.Client(`${url.hostname}:${port}`, credentials);
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(config.headers)) metadata.set(name, value);
  return {
    send(body) {
      return new Promise((resolve) => {
        client.makeUnaryRequest<Uint8Array, Buffer>(
          LOGS_EXPORT,
          (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength),
          (b) => b,
          body,
          metadata,
          { deadline: Date.now() + config.timeoutMs },
          (err, answer) => {
            if (err) resolve({ kind: RETRIABLE_GRPC.has(err.code) ? 'retriable' : 'permanent', error: `gRPC ${url.host}: ${grpc.status[err.code] ?? err.code} ${err.details}` });
            else resolve({ kind: 'sent', rejected: answer ? rejectedRecords(answer) : 0 });
          },
        );
      });
    },
    close() {
      client.close();
    },
  };
}

export function createOtlpSender(config: EvaluationExportConfig): OtlpSender {
  return config.protocol === 'grpc' ? grpcSender(config) : httpSender(config);
}
