import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { decodeLogsRequestProtobufLazy } from '../../services/collector/src/otlp/decode-protobuf.ts';
import type { DecodedLogRecord } from '../../services/collector/src/otlp/types.ts';

// A second OTLP receiver for the evaluation records tracecheck sends out: OTLP/HTTP protobuf
// (POST /v1/logs) and OTLP/gRPC (LogsService/Export) on loopback, each export decoded with the
// collector's own decoder and kept with its resource, scope and headers. `refuse` > 0 answers
// that many exports as unavailable (HTTP 503 / gRPC UNAVAILABLE) before taking any.

interface ReceivedRecord {
  resource: Record<string, unknown>;
  scope: string;
  record: DecodedLogRecord;
}

export interface LogsReceiver {
  readonly endpoint: string;
  records: ReceivedRecord[];
  /** Each export's `authorization` header (HTTP) or metadata (gRPC). */
  authorizations: Array<string | undefined>;
  /** Exports answered unavailable so far. */
  refused: number;
  /** Exports still to be refused. */
  refuse: number;
  close(): Promise<void>;
}

function take(receiver: LogsReceiver, body: Uint8Array): void {
  const req = decodeLogsRequestProtobufLazy(body);
  for (const rl of req.resourceLogs) {
    for (const sl of rl.scopeLogs) {
      for (let i = 0; i < sl.count; i++) receiver.records.push({ resource: rl.resource.attributes, scope: sl.scope.name, record: sl.logRecord(i) });
    }
  }
}

export async function startHttpLogsReceiver(): Promise<LogsReceiver> {
  const receiver: LogsReceiver = { endpoint: '', records: [], authorizations: [], refused: 0, refuse: 0, close: () => new Promise((done) => server.close(() => done())) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/logs' || req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(404).end();
        return;
      }
      receiver.authorizations.push(req.headers.authorization);
      if (receiver.refuse > 0) {
        receiver.refuse -= 1;
        receiver.refused += 1;
        res.writeHead(503).end();
        return;
      }
      take(receiver, Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(receiver, { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

export async function startGrpcLogsReceiver(): Promise<LogsReceiver> {
  const server = new grpc.Server();
  const raw = (b: Buffer): Buffer => b;
  const receiver: LogsReceiver = {
    endpoint: '',
    records: [],
    authorizations: [],
    refused: 0,
    refuse: 0,
    close: () => new Promise<void>((done) => server.tryShutdown(() => done())),
  };
  server.addService(
    { Export: { path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw } },
    {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, answer: grpc.sendUnaryData<Buffer>) => {
        receiver.authorizations.push(call.metadata.get('authorization')[0]?.toString());
        if (receiver.refuse > 0) {
          receiver.refuse -= 1;
          receiver.refused += 1;
          answer({ code: grpc.status.UNAVAILABLE, details: 'receiver down' });
          return;
        }
        take(receiver, call.request);
        answer(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  return Object.assign(receiver, { endpoint: `http://127.0.0.1:${port}` });
}
