import { Metadata, Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import { admissionKey, type Admission } from '../admission.ts';
import { listenError } from '../../../../shared/runtime/errors/index.ts';
import { clientOf, forwardedFor, peerAddress } from '../auth-throttle.ts';
import type { AddressMatcher } from '../../../../shared/runtime/http/index.ts';
import type { Authorize, Ingest, IngestResult } from '../ingest.ts';
import { decodeLogsRequestProtobufLazy, decodeTraceRequestProtobufLazy } from '../otlp/decode-protobuf.ts';
import { encodeLogsResponse, encodeTraceResponse } from '../otlp/encode-response.ts';
import { DecodeError } from '../otlp/types.ts';
import { google } from '../generated/otlp.js';

export interface GrpcReceiverOptions {
  host: string;
  port: number;
  /** Max (decompressed) message size; larger → RESOURCE_EXHAUSTED (enforced by grpc-js). */
  maxMessageBytes: number;
  ingest: Ingest;
  /** Exports in flight (shared with HTTP); a call it refuses gets RESOURCE_EXHAUSTED + RetryInfo. */
  admission: Admission;
  retryAfterSeconds: number;
  /** Checks the `authorization` metadata; absent: open (no keys). */
  authorize?: Authorize;
  /** Proxies whose `x-forwarded-for` metadata names the client (TRACECHECK_TRUSTED_PROXIES); absent: none. */
  trustedProxies?: AddressMatcher;
  log: Logger;
}

export interface GrpcReceiver {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** `host:port`, valid after start. */
  address(): string;
}

const identity = (b: Buffer): Buffer => b;

// Raw bytes in and out: decoding happens in the handler, so that undecodable input maps to
// INVALID_ARGUMENT with our message instead of a generic grpc-js error.
function unary(path: string): ServiceDefinition[string] {
  return { path, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity, originalName: 'Export' };
}

const TRACE_SERVICE = { Export: unary('/opentelemetry.proto.collector.trace.v1.TraceService/Export') } as ServiceDefinition;
const LOGS_SERVICE = { Export: unary('/opentelemetry.proto.collector.logs.v1.LogsService/Export') } as ServiceDefinition;

function retryInfoMetadata(code: number, message: string, retryAfterSeconds: number): Metadata {
  const retryInfo = google.rpc.RetryInfo.encode({ retryDelay: { seconds: retryAfterSeconds, nanos: 0 } }).finish();
  const details = google.rpc.Status.encode({ code, message, details: [{ typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', value: retryInfo }] }).finish();
  const md = new Metadata();
  md.set('grpc-status-details-bin', Buffer.from(details));
  return md;
}

/** OTLP/gRPC receiver: TraceService/Export and LogsService/Export over @grpc/grpc-js. */
export function createGrpcReceiver(options: GrpcReceiverOptions): GrpcReceiver {
  const { ingest, log } = options;
  const server = new Server({
    'grpc.max_receive_message_length': options.maxMessageBytes,
    'grpc.max_send_message_length': 4 * 1024 * 1024,
  });

  function reply(callback: sendUnaryData<Buffer>, result: IngestResult, encode: (partial?: { rejected: number; errorMessage: string }) => Buffer): void {
    switch (result.kind) {
      case 'ok':
        callback(null, encode(result.partial));
        return;
      case 'too_many_items':
        callback({ code: status.RESOURCE_EXHAUSTED, details: result.message });
        return;
      case 'unavailable':
        callback({ code: status.UNAVAILABLE, details: result.message, metadata: retryInfoMetadata(status.UNAVAILABLE, result.message, result.retryAfterSeconds) });
        return;
      case 'busy':
        callback({ code: status.RESOURCE_EXHAUSTED, details: result.message, metadata: retryInfoMetadata(status.RESOURCE_EXHAUSTED, result.message, result.retryAfterSeconds) });
        return;
    }
  }

  function handler(signal: 'traces' | 'logs') {
    return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
      const header = call.metadata.get('authorization')[0];
      const ticket = options.admission.tryEnter(admissionKey(typeof header === 'string' ? header : undefined), call.request.length);
      if (!ticket) {
        const message = 'collector saturated, retry later';
        callback({ code: status.RESOURCE_EXHAUSTED, details: message, metadata: retryInfoMetadata(status.RESOURCE_EXHAUSTED, message, options.retryAfterSeconds) });
        return;
      }
      const run = async (): Promise<void> => {
        let project: string | undefined;
        if (options.authorize) {
          const auth = await options.authorize(typeof header === 'string' ? header : undefined, clientOf(peerAddress(call.getPeer()), forwardedFor(call.metadata.get('x-forwarded-for')), options.trustedProxies));
          if (!auth.ok) {
            if (auth.status === 429) callback({ code: status.RESOURCE_EXHAUSTED, details: auth.message, metadata: retryInfoMetadata(status.RESOURCE_EXHAUSTED, auth.message, auth.retryAfterSeconds) });
            else if (auth.status === 503) callback({ code: status.UNAVAILABLE, details: auth.message, metadata: retryInfoMetadata(status.UNAVAILABLE, auth.message, options.retryAfterSeconds) });
            else callback({ code: auth.status === 401 ? status.UNAUTHENTICATED : status.PERMISSION_DENIED, details: auth.message });
            return;
          }
          project = auth.project;
        }
        if (signal === 'traces') {
          const result = await ingest.exportTraces(() => decodeTraceRequestProtobufLazy(call.request), project, { encoding: 'protobuf', bytes: call.request });
          reply(callback, result, (p) => encodeTraceResponse('protobuf', p));
        } else {
          const result = await ingest.exportLogs(() => decodeLogsRequestProtobufLazy(call.request), project, { encoding: 'protobuf', bytes: call.request });
          reply(callback, result, (p) => encodeLogsResponse('protobuf', p));
        }
      };
      run()
        .catch((err: unknown) => {
          if (err instanceof DecodeError) {
            callback({ code: status.INVALID_ARGUMENT, details: err.message });
            return;
          }
          log.error({ err, signal }, 'OTLP/gRPC handler failed');
          callback({ code: status.INTERNAL, details: 'internal error' });
        })
        .finally(() => ticket.release());
    };
  }

  server.addService(TRACE_SERVICE, { Export: handler('traces') });
  server.addService(LOGS_SERVICE, { Export: handler('logs') });

  let address = '';
  let bound = false;
  return {
    start() {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (err, port) => {
          if (err) return reject(listenError(err, options.host, options.port));
          bound = true;
          address = `${options.host}:${port}`;
          log.info({ address }, 'OTLP/gRPC receiver listening');
          resolve();
        });
      });
    },
    stop() {
      if (!bound) return Promise.resolve();
      return new Promise((resolve) => {
        // A client that never finishes its call must not hold shutdown forever.
        const force = setTimeout(() => server.forceShutdown(), 5_000);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
    address: () => address,
  };
}
