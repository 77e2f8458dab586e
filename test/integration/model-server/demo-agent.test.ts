import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTraceRequestProtobuf } from '../../../services/collector/src/otlp/decode-protobuf.ts';
import type { DecodedSpan } from '../../../services/collector/src/otlp/types.ts';
import { runDemo } from '../../../tools/demo-agent/src/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

// A bare OTLP/HTTP receiver: records what the real exporter sends and answers with `status`.
async function startReceiver(status: number): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(status, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

let model: ModelServer;
beforeAll(async () => {
  model = createModelServer({ port: 0, log: createSilentLogger() });
  await model.start();
});
afterAll(async () => {
  await model.shutdown();
});

function output(span: DecodedSpan): string {
  const messages = JSON.parse(span.attributes['gen_ai.output.messages'] as string) as Array<{ parts: Array<{ type: string; content?: string }> }>;
  return messages[0].parts.map((p) => p.content ?? `<${p.type}>`).join('');
}

describe('demo agent', () => {
  it('sends three conversations through the real OTLP protobuf exporter, one trace each', async () => {
    const receiver = await startReceiver(200);
    try {
      const result = await runDemo({ collectorUrl: receiver.url, modelBaseUrl: `${model.url()}/v1` });
      expect(receiver.received.length).toBeGreaterThan(0);
      expect(receiver.received.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf')).toBe(true);

      const spans: DecodedSpan[] = [];
      const services = new Set<unknown>();
      for (const r of receiver.received) {
        for (const rs of decodeTraceRequestProtobuf(r.body).resourceSpans) {
          services.add(rs.resource.attributes['service.name']);
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      expect([...services]).toEqual(['tracecheck-demo-agent']);
      const { healthy, toolFails, loops } = result.traceIds;
      expect(new Set([healthy, toolFails, loops]).size).toBe(3);
      expect(spans).toHaveLength(4 + 4 + 9);
      const of = (traceId: string): DecodedSpan[] => spans.filter((s) => s.traceId === traceId);
      const names = (traceId: string): string[] => of(traceId).map((s) => s.name).sort();
      const root = (traceId: string): DecodedSpan => of(traceId).find((s) => s.parentSpanId === '')!;

      expect(names(healthy)).toEqual(['chat mock-accurate', 'chat mock-accurate', 'execute_tool get_weather', 'invoke_agent demo-agent']);
      expect(root(healthy).attributes['tracecheck.scenario.result']).toBe('Here is what I found: city: Paris, forecast: sunny, temperature_c: 22.');
      expect(of(healthy).every((s) => s.parentSpanId === '' || s.parentSpanId === root(healthy).spanId)).toBe(true);
      const conversation = root(healthy).attributes['gen_ai.conversation.id'];
      expect(conversation).toBe(result.conversationIds.healthy);
      expect(of(healthy).every((s) => s.attributes['gen_ai.conversation.id'] === conversation)).toBe(true);

      expect(names(toolFails)).toEqual(['chat mock-accurate', 'chat mock-accurate', 'execute_tool lookup_order', 'invoke_agent demo-agent']);
      const failedTool = of(toolFails).find((s) => s.name === 'execute_tool lookup_order')!;
      expect(failedTool.status).toEqual({ code: 2, message: 'order service timeout while looking up A-1001' });
      expect(failedTool.events.map((e) => e.name)).toEqual(['exception']);
      const lastChat = of(toolFails).filter((s) => s.name.startsWith('chat')).sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1))[1];
      expect(output(lastChat)).toBe(
        "I'm sorry, I couldn't complete that: lookup_order failed (error: lookup_order failed: order service timeout while looking up A-1001). Please try again later.",
      );

      expect(names(loops)).toEqual([...Array(4).fill('chat mock-accurate'), ...Array(4).fill('execute_tool get_weather'), 'invoke_agent demo-agent']);
      const loopTools = of(loops).filter((s) => s.name === 'execute_tool get_weather');
      expect(loopTools.map((s) => s.attributes['gen_ai.tool.call.arguments'])).toEqual(Array(4).fill('{"city":"Oslo"}'));
      expect(new Set(loopTools.map((s) => s.attributes['gen_ai.tool.call.id'])).size).toBe(4);
      expect(root(loops).attributes['tracecheck.scenario.result']).toBe('Gave up after 4 model calls without an answer.');
    } finally {
      receiver.server.close();
    }
  });

  it('rejects when the collector refuses the export', async () => {
    const receiver = await startReceiver(400);
    try {
      await expect(runDemo({ collectorUrl: receiver.url, modelBaseUrl: `${model.url()}/v1` })).rejects.toThrow(/exporting the demo's spans to .* failed/);
    } finally {
      receiver.server.close();
    }
  });
});
