import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleTrace } from '../../../services/assembler/src/assemble-trace.ts';
import { createCollector, type Collector } from '../../../services/collector/src/index.ts';
import { createRecordingProducer } from '../../../services/collector/src/testing/recording-producer.ts';
import { SpanEnvelopeSchema, type LogRecordEnvelope, type SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';

// @opentelemetry/instrumentation-openai 0.21.0 as released, with openai 6, on the Responses API,
// live: the fixture family's own script (scripts/fixtures/families/otel-openai-responses.ts) runs
// in a child process against the model server, its real protobuf and JSON exporters post to a
// small relay, and the relay hands every request to a tracecheck collector over OTLP/HTTP.

const root = resolve(import.meta.dirname, '../../..');
const LIVE_BOUND_MS = 120_000;
const FIRST = 'Hello, I am Ada. Please remember my name.';

type Encoding = 'pb' | 'json';
const collectors = new Map<Encoding, { collector: Collector; producer: ReturnType<typeof createRecordingProducer> }>();
let model: ModelServer;
let relay: Server;

beforeAll(async () => {
  model = createModelServer({ log: createSilentLogger(), port: 0 });
  await model.start();
  for (const encoding of ['pb', 'json'] as const) {
    const producer = createRecordingProducer();
    const collector = createCollector({
      config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 20 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000 }, topic: 'live' },
      producer,
      log: createSilentLogger(),
    });
    await collector.start();
    collectors.set(encoding, { collector, producer });
  }
  // /live/{pb|json}/v1/{traces|logs} → that encoding's collector; /live/mark/<scenario> → 200.
  relay = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/live\/(pb|json)(\/v1\/(?:traces|logs))$/.exec(req.url ?? '');
      if (!m) {
        res.writeHead(200).end();
        return;
      }
      const target = collectors.get(m[1] as Encoding)!.collector;
      void fetch(`${target.httpAddress()}${m[2]}`, { method: 'POST', body: Buffer.concat(chunks), headers: { 'content-type': req.headers['content-type'] ?? '' } }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? '' }).end(Buffer.from(await r.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((ok) => relay.listen(0, '127.0.0.1', ok));
}, LIVE_BOUND_MS);

afterAll(async () => {
  await new Promise<void>((ok) => relay.close(() => ok()));
  for (const { collector } of collectors.values()) await collector.shutdown();
  await model.shutdown();
});

function runLibrary(): Promise<number | null> {
  const port = (relay.address() as AddressInfo).port;
  const child = spawn(process.execPath, [join(root, 'bin/run-ts.mjs'), join(root, 'scripts/fixtures/families/otel-openai-responses.ts'), '--family', 'live', '--model-url', `${model.url()}/v1`, '--otlp-url', `http://127.0.0.1:${port}/live`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((ok) => child.on('exit', ok));
}

describe('@opentelemetry/instrumentation-openai on the Responses API, live', () => {
  it('every message reaches the unit, the user\'s first one included, over OTLP/HTTP protobuf and JSON', async () => {
    expect(await runLibrary()).toBe(0);
    for (const encoding of ['pb', 'json'] as const) {
      const spans: SpanRecord[] = [];
      const logs: LogRecordEnvelope[] = [];
      for (const s of collectors.get(encoding)!.producer.sent) {
        const e = SpanEnvelopeSchema.parse(JSON.parse(s.message.value));
        if (e.kind === 'span') spans.push(e);
        else logs.push(e);
      }
      const traceIds = [...new Set(spans.map((s) => s.trace_id))];
      expect(traceIds, encoding).toHaveLength(1);
      const unit = assembleTrace({ traceId: traceIds[0], spans, logs }, 0);
      expect(unit.message_history, encoding).toEqual([
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: FIRST },
        { role: 'assistant', content: `You said: ${FIRST}` },
        { role: 'user', content: 'What is 2 + 3?' },
        { role: 'assistant', content: '5' },
      ]);
      expect(unit.model_output).toBe('5');
    }
  }, LIVE_BOUND_MS);
});
