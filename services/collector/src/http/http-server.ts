import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_DENIED, type MetricsAccess } from '../../../../shared/kit/access/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import { admissionKey, type Admission, type AdmissionTicket } from '../admission.ts';
import { listenError } from '../../../../shared/runtime/errors/index.ts';
import { clientOf, peerAddress } from '../auth-throttle.ts';
import type { AddressMatcher } from '../../../../shared/runtime/http/index.ts';
import type { Authorize, Ingest, IngestResult } from '../ingest.ts';
import { LANGFUSE_TRACES_PATH } from '../langfuse-door.ts';
import { acceptedMediaType } from '../../../../shared/runtime/http/index.ts';
import { METRICS_CONTENT_TYPE, renderMetrics, type Metrics } from '../../../../shared/kit/metrics/index.ts';
import { decodeLogsRequestJsonLazy, decodeTraceRequestJsonLazy } from '../otlp/decode-json.ts';
import { decodeLogsRequestProtobufLazy, decodeTraceRequestProtobufLazy } from '../otlp/decode-protobuf.ts';
import { encodeLogsResponse, encodeStatus, encodeTraceResponse } from '../otlp/encode-response.ts';
import { DecodeError, type OtlpEncoding } from '../otlp/types.ts';
import { readBody, SATURATED_MESSAGE } from './read-body.ts';

export interface HttpReceiverOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /**
   * Exports in flight (shared with gRPC), per Authorization header; a request it refuses gets 429.
   * Bytes are the declared Content-Length, raised to what is read and decompressed (chunked bodies too).
   */
  admission: Admission;
  retryAfterSeconds: number;
  ingest: Ingest;
  /** Checks the `Authorization` header; absent: open (no keys). */
  authorize?: Authorize;
  /** Proxies whose X-Forwarded-For names the client (TRACECHECK_TRUSTED_PROXIES); absent: none. */
  trustedProxies?: AddressMatcher;
  /** Served at GET /metrics. */
  metrics?: Metrics;
  /** Who may read GET /metrics; absent: anyone. */
  metricsAccess?: MetricsAccess;
  log: Logger;
}

export interface HttpReceiver {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** `http://host:port`, valid after start. */
  address(): string;
}

// gRPC codes carried in google.rpc.Status for each HTTP answer.
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 405: 12, 413: 8, 415: 3, 429: 8, 500: 13, 503: 14 };

const CONTENT_TYPE: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

const ENCODING_OF: Record<string, OtlpEncoding> = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' };
const MEDIA_TYPES = Object.keys(ENCODING_OF);

/** The two OTLP/HTTP content types exactly (parameters such as `; charset=utf-8` allowed); anything else is 415. */
function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = acceptedMediaType(contentType, MEDIA_TYPES);
  return type === undefined ? undefined : ENCODING_OF[type];
}

type Signal = 'traces' | 'logs';
const ROUTES: Record<string, Signal> = { '/v1/traces': 'traces', '/v1/logs': 'logs', [LANGFUSE_TRACES_PATH]: 'traces' };

/** OTLP/HTTP receiver on plain node:http: `POST /v1/traces` (also at the Langfuse SDKs' path), `POST /v1/logs`, `GET /healthz`, `GET /metrics` (when given metrics). */
export function createHttpReceiver(options: HttpReceiverOptions): HttpReceiver {
  const { log, ingest } = options;

  function send(res: ServerResponse, status: number, encoding: OtlpEncoding, body: Buffer, headers: Record<string, string> = {}): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'Content-Type': CONTENT_TYPE[encoding], 'Content-Length': String(body.length), ...headers });
    res.end(body);
  }

  function fail(res: ServerResponse, status: number, encoding: OtlpEncoding, message: string, headers: Record<string, string> = {}): void {
    send(res, status, encoding, encodeStatus(encoding, GRPC_CODE[status] ?? 2, message), headers);
  }

  function answer(res: ServerResponse, signal: Signal, encoding: OtlpEncoding, result: IngestResult): void {
    switch (result.kind) {
      case 'ok':
        send(res, 200, encoding, signal === 'traces' ? encodeTraceResponse(encoding, result.partial) : encodeLogsResponse(encoding, result.partial));
        return;
      case 'too_many_items':
        fail(res, 413, encoding, result.message);
        return;
      case 'unavailable':
        fail(res, 503, encoding, result.message, { 'Retry-After': String(result.retryAfterSeconds) });
        return;
      case 'busy':
        fail(res, 429, encoding, result.message, { 'Retry-After': String(result.retryAfterSeconds) });
        return;
    }
  }

  async function handleExport(req: IncomingMessage, res: ServerResponse, signal: Signal, encoding: OtlpEncoding, ticket: AdmissionTicket): Promise<void> {
    let project: string | undefined;
    if (options.authorize) {
      const auth = await options.authorize(req.headers.authorization, clientOf(peerAddress(req.socket.remoteAddress), req.headers['x-forwarded-for'], options.trustedProxies));
      if (!auth.ok) {
        req.resume();
        const headers: Record<string, string> =
          auth.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : auth.status === 503 ? { 'Retry-After': String(options.retryAfterSeconds) } : auth.status === 429 ? { 'Retry-After': String(auth.retryAfterSeconds) } : {};
        fail(res, auth.status, encoding, auth.message, headers);
        return;
      }
      project = auth.project;
    }
    const body = await readBody(req, options.maxBodyBytes, (total) => ticket.ensure(total));
    if (!body.ok) {
      const headers: Record<string, string> = body.status === 413 ? { Connection: 'close' } : body.status === 429 ? { Connection: 'close', 'Retry-After': String(options.retryAfterSeconds) } : {};
      fail(res, body.status, encoding, body.message, headers);
      return;
    }
    let result: IngestResult;
    try {
      const bytes = body.body;
      if (signal === 'traces') {
        result = await ingest.exportTraces(() => (encoding === 'protobuf' ? decodeTraceRequestProtobufLazy(bytes) : decodeTraceRequestJsonLazy(bytes)), project, { encoding, bytes });
      } else {
        result = await ingest.exportLogs(() => (encoding === 'protobuf' ? decodeLogsRequestProtobufLazy(bytes) : decodeLogsRequestJsonLazy(bytes)), project, { encoding, bytes });
      }
    } catch (err) {
      if (err instanceof DecodeError) {
        fail(res, 400, encoding, err.message);
        return;
      }
      throw err;
    }
    answer(res, signal, encoding, result);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    const encoding = encodingOf(req.headers['content-type']);
    const replyEncoding = encoding ?? 'json';
    if (path === '/healthz') {
      req.resume();
      if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, replyEncoding, 'method not allowed', { Allow: 'GET' });
      return send(res, 200, 'json', Buffer.from('{"status":"ok"}'));
    }
    if (path === '/metrics' && options.metrics) {
      req.resume();
      if (req.method !== 'GET') return fail(res, 405, replyEncoding, 'method not allowed', { Allow: 'GET' });
      if (options.metricsAccess && !(await options.metricsAccess(req.headers.authorization))) return fail(res, 401, 'json', METRICS_DENIED, { 'WWW-Authenticate': 'Bearer' });
      const text = await renderMetrics(options.metrics);
      res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text);
      return undefined;
    }
    const signal = ROUTES[path];
    if (!signal) {
      req.resume();
      return fail(res, 404, replyEncoding, `no route for ${path.slice(0, 100)}`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return fail(res, 405, replyEncoding, `${req.method ?? ''} not allowed on ${path}; use POST`, { Allow: 'POST' });
    }
    if (!encoding) {
      req.resume();
      const ct = (req.headers['content-type'] ?? '').slice(0, 100);
      return fail(res, 415, 'json', `unsupported Content-Type "${ct}" (use application/x-protobuf or application/json)`);
    }
    const declared = Number(req.headers['content-length']) || 0;
    const ticket = options.admission.tryEnter(admissionKey(req.headers.authorization), declared);
    if (!ticket) {
      req.resume();
      return fail(res, 429, encoding, SATURATED_MESSAGE, { 'Retry-After': String(options.retryAfterSeconds) });
    }
    try {
      await handleExport(req, res, signal, encoding, ticket);
    } finally {
      ticket.release();
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, 'OTLP/HTTP handler failed');
      const encoding = encodingOf(req.headers['content-type']) ?? 'json';
      if (!res.headersSent) fail(res, 500, encoding, 'internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (err, socket) => {
    log.debug({ err }, 'OTLP/HTTP client error');
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  let address = '';
  return {
    start() {
      return new Promise((resolve, reject) => {
        const failed = (err: Error): void => reject(listenError(err, options.host, options.port));
        server.once('error', failed);
        server.listen(options.port, options.host, () => {
          server.off('error', failed);
          const a = server.address() as AddressInfo;
          const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
          address = `http://${host}:${a.port}`;
          log.info({ address }, 'OTLP/HTTP receiver listening');
          resolve();
        });
      });
    },
    stop() {
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        // Exports in flight get a few seconds to finish; keep-alive clients must not hold shutdown.
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
    address: () => address,
  };
}
