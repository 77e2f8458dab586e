import { readFileSync } from 'node:fs';
import { Client, credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollector, type Collector } from '../../../services/collector/src/index.ts';
import { createRecordingProducer } from '../../../services/collector/src/testing/recording-producer.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { listFixtures, listJsFixtures, normalizeFixture, project, type Fixture } from './fixture-expectations.ts';

// Golden exports of real instrumentation libraries, replayed through a real collector over
// OTLP/HTTP JSON, OTLP/HTTP protobuf and OTLP/gRPC: each must give exactly the expected envelopes.

const producer = createRecordingProducer();
let collector: Collector;
let grpc: Client;

// On a conversion worker (as `tracecheck up` runs on two cores or more): the same envelopes as the
// main thread's conversion (normalizeFixture).
beforeAll(async () => {
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 20 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000 }, topic: 'fixtures', workers: 1 },
    producer,
    log: createSilentLogger(),
  });
  await collector.start();
  grpc = new Client(collector.grpcAddress(), credentials.createInsecure());
});
afterAll(async () => {
  grpc.close();
  await collector.shutdown();
});

const fixtures = listFixtures();

function expectedOf(f: Fixture): Record<string, unknown>[] {
  return (JSON.parse(readFileSync(f.expectedPath, 'utf8')) as { records: Record<string, unknown>[] }).records;
}

async function viaHttp(f: Fixture, encoding: 'json' | 'protobuf'): Promise<Record<string, unknown>[]> {
  producer.sent.length = 0;
  const body = readFileSync(encoding === 'json' ? f.jsonPath : f.pbPath);
  const res = await fetch(`${collector.httpAddress()}/v1/${f.signal}`, {
    method: 'POST',
    body,
    headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(encoding === 'json' ? 'application/json' : 'application/x-protobuf');
  return producer.sent.map((s) => project(s.message));
}

async function viaGrpc(f: Fixture): Promise<Record<string, unknown>[]> {
  producer.sent.length = 0;
  const service = f.signal === 'logs' ? 'logs.v1.LogsService' : 'trace.v1.TraceService';
  await new Promise<void>((resolve, reject) => {
    grpc.makeUnaryRequest(`/opentelemetry.proto.collector.${service}/Export`, (b: Buffer) => b, (b: Buffer) => b, readFileSync(f.pbPath), (err) => (err ? reject(err) : resolve()));
  });
  return producer.sent.map((s) => project(s.message));
}

describe('golden fixtures replayed through the collector', () => {
  it('has fixtures for every family', () => {
    expect([...new Set(listJsFixtures().map((f) => f.family))]).toEqual([
      'genai-split',
      'langchain-openinference',
      'langfuse-js',
      'mcp',
      'openinference',
      'openllmetry',
      'openllmetry-legacy',
      'otel-genai-openai',
      'otel-genai-openai-responses',
      'vercel-ai-sdk',
      'vercel-ai-sdk-otel',
    ]);
  });

  it.each(fixtures.map((f) => [`${f.family}/${f.scenario}`, f] as const))('%s: the expectations match the current normalizer', (_name, f) => {
    expect(normalizeFixture(f)).toEqual(expectedOf(f));
  });

  it.each(fixtures.map((f) => [`${f.family}/${f.scenario}`, f] as const))('%s: same envelopes over HTTP JSON, HTTP protobuf and gRPC', async (_name, f) => {
    const expected = expectedOf(f);
    expect(await viaHttp(f, 'json')).toEqual(expected);
    expect(await viaHttp(f, 'protobuf')).toEqual(expected);
    expect(await viaGrpc(f)).toEqual(expected);
  });
});

// The conversation every scenario holds, as the library's second model call sees it.
const CALL_ID = 'call_27aba71f8bfce8a53049a123';
const SYSTEM: ChatMessage = { role: 'system', content: 'You are a weather assistant. Use the get_weather tool.' };
const USER: ChatMessage = { role: 'user', content: 'What is the weather in Paris?' };
const CALL = (id: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
const RESULT = (id: string): ChatMessage => ({ role: 'tool', content: '{"city":"Paris","forecast":"sunny","temperature_c":22}', tool_call_id: id });
const ANSWER: ChatMessage = { role: 'assistant', content: 'Here is what I found: city: Paris, forecast: sunny, temperature_c: 22.' };

describe('every JS family yields the same conversation', () => {
  const jsFixtures = listJsFixtures();
  // genai-split, mcp and langfuse-js hold other runs: their own tests are genai-split-units.test.ts and langfuse-units.test.ts.
  const traceFixtures = jsFixtures.filter((f) => f.signal === 'traces' && !f.family.startsWith('otel-genai-openai') && !['genai-split', 'mcp', 'langfuse-js'].includes(f.family));

  it.each(traceFixtures.map((f) => [`${f.family}/${f.scenario}`, f] as const))('%s: model calls hold the exact messages', (_name, f) => {
    const chats = expectedOf(f).filter((r) => {
      const g = r.genai as { operation?: string };
      return g.operation === 'chat';
    });
    expect(chats).toHaveLength(2);
    const [first, second] = chats.map((c) => c.genai as { input_messages: ChatMessage[]; output_messages: ChatMessage[] });
    // openllmetry-js 0.22 records neither tool-call ids nor the assistant's tool calls in the history.
    const legacy = f.family === 'openllmetry-legacy';
    expect(first.input_messages).toEqual([SYSTEM, USER]);
    expect(first.output_messages).toEqual([CALL(legacy ? '' : CALL_ID)]);
    expect(second.input_messages).toEqual(legacy ? [SYSTEM, USER, { role: 'assistant', content: null }, RESULT('')] : [SYSTEM, USER, CALL(CALL_ID), RESULT(CALL_ID)]);
    expect(second.output_messages).toEqual([ANSWER]);
  });

  it('otel-genai-openai: the log events hold the exact messages', () => {
    for (const f of jsFixtures.filter((x) => x.family === 'otel-genai-openai' && x.signal === 'logs')) {
      const messages = expectedOf(f).map((r) => [r.is_output, r.message]);
      expect(messages).toEqual([
        [false, SYSTEM],
        [false, USER],
        [true, CALL(CALL_ID)],
        [false, SYSTEM],
        [false, USER],
        [false, CALL(CALL_ID)],
        [false, RESULT(CALL_ID)],
        [true, ANSWER],
      ]);
    }
  });

  it.each(
    jsFixtures
      .filter((f) => ['langchain-openinference', 'vercel-ai-sdk', 'vercel-ai-sdk-otel'].includes(f.family) && f.signal === 'traces')
      .map((f) => [`${f.family}/${f.scenario}`, f] as const),
  )('%s: the tool span is linked to the call by id', (_name, f) => {
    const tools = expectedOf(f)
      .map((r) => (r.genai as { tool_execution?: Record<string, string> }).tool_execution)
      .filter(Boolean);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: 'get_weather', call_id: CALL_ID, result: '{"city":"Paris","forecast":"sunny","temperature_c":22}' });
  });
});
