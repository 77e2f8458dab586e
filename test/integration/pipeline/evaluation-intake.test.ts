import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLogsRequest, encodeTraceRequest } from '../../../services/collector/src/testing/otlp-builders.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { AlertPayload } from '../../../shared/engines/alerts/index.ts';
import { genAiRunsExport } from '../../helpers/genai-run-export.ts';
import { waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';

// Other tools' evaluations (`gen_ai.evaluation.result`) as AgentCore and Azure's tracer write them
// (test/fixtures/evaluation-events, modeled on their documentation), sent over OTLP/HTTP JSON,
// protobuf and gRPC, as log records and as a span event: each becomes an external score of the
// run it evaluates, whether it arrives after the run was scored or before the run was sent.

const FIXTURES = join(import.meta.dirname, '../../fixtures/evaluation-events');
const PLACEHOLDER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PLACEHOLDER_SPAN = 'b7ad6b7169203331';
const AGENTCORE = 'bedrock-agentcore-evaluations/aws.bedrock_agentcore.evaluations';
const AZURE = 'azure-ai-foundry-evaluation/azure.ai.evaluation';

type Encoding = 'json' | 'protobuf' | 'grpc';
type Obj = Record<string, unknown>;

function fixture(name: string, traceId: string, rootSpanId: string): Obj {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8').replaceAll(PLACEHOLDER_TRACE, traceId).replaceAll(PLACEHOLDER_SPAN, rootSpanId)) as Obj;
}

function newRun(): { traceId: string; rootSpanId: string; request: Obj } {
  const { ids, body } = genAiRunsExport(1);
  const request = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ spanId: string; parentSpanId?: string }> }> }> };
  return { traceId: ids[0], rootSpanId: request.resourceSpans[0].scopeSpans[0].spans.find((s) => !s.parentSpanId)!.spanId, request: request };
}

/** What a test asserts of a score: all but when it was written. */
const seen = (s: Score) => ({ unit_id: s.unit_id, check: s.check, check_version: s.check_version, status: s.status, value: s.value, passed: s.passed, explanation: s.explanation, method: s.method, agent_name: s.agent_name, service: s.service, environment: s.environment });

describe('evaluation events in: external scores', () => {
  let harness: Harness;
  let grpc: Client;

  const hooks: AlertPayload[] = [];
  let hook: Server;
  let hookUrl: string;

  beforeAll(async () => {
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertPayload);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    harness = await startPipeline({ TRACECHECK_CHECKS: 'function_result_present', TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '127.0.0.1' }, { alerterNow: () => Date.now() });
    grpc = new Client(harness.pipeline.collectorGrpcAddress(), credentials.createInsecure());
  });
  afterAll(async () => {
    grpc?.close();
    await harness?.stop();
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  });

  async function send(signal: 'traces' | 'logs', request: Obj, encoding: Encoding): Promise<void> {
    if (encoding === 'grpc') {
      const service = signal === 'logs' ? 'logs.v1.LogsService' : 'trace.v1.TraceService';
      const bytes = Buffer.from(signal === 'logs' ? encodeLogsRequest(request) : encodeTraceRequest(request));
      await new Promise<void>((resolve, reject) => {
        grpc.makeUnaryRequest(`/opentelemetry.proto.collector.${service}/Export`, (b: Buffer) => b, (b: Buffer) => b, bytes, (err) => (err ? reject(err) : resolve()));
      });
      return;
    }
    const body = encoding === 'json' ? JSON.stringify(request) : Buffer.from(signal === 'logs' ? encodeLogsRequest(request) : encodeTraceRequest(request));
    const res = await fetch(`${harness.pipeline.collectorUrl()}/v1/${signal}`, { method: 'POST', headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' }, body });
    expect(res.status).toBe(200);
  }

  async function scoresOf(traceId: string, external: number, own: number): Promise<{ external: Score[]; own: Score[] }> {
    return waitFor(
      async () => {
        const all = await harness.pipeline.store!.queryScores({ unitId: traceId });
        const split = { external: all.filter((s) => s.method === 'external').sort((a, b) => a.check.localeCompare(b.check)), own: all.filter((s) => s.method !== 'external') };
        return split.external.length === external && split.own.length === own ? split : null;
      },
      { description: `${external} external and ${own} own scores of ${traceId}`, timeoutMs: 60_000 },
    );
  }

  const run = { agent_name: 'booker', service: 'booking-api', environment: 'prod', status: 'ok', method: 'external' } as const;

  it.each(['json', 'protobuf', 'grpc'] as const)('AgentCore log records after the run was scored (%s)', async (encoding) => {
    const { traceId, rootSpanId, request } = newRun();
    await send('traces', request, 'json');
    await scoresOf(traceId, 0, 1);
    await send('logs', fixture('agentcore.logs.json', traceId, rootSpanId), encoding);
    const { external, own } = await scoresOf(traceId, 2, 1);
    expect(external.map(seen)).toEqual([
      { ...run, unit_id: traceId, check: 'Builtin.GoalSuccessRate', check_version: `external:${AGENTCORE}`, value: 0, passed: false, explanation: `label: No; The user wanted a booking; none was made.; from ${AGENTCORE}` },
      { ...run, unit_id: traceId, check: 'Builtin.Helpfulness', check_version: `external:${AGENTCORE}`, value: 0.83, passed: null, explanation: `label: Very Helpful; The agent checked availability for the requested date and explained that no table was free.; from ${AGENTCORE}` },
    ]);
    const unit = await harness.pipeline.store!.getUnit(traceId);
    expect(external.map((s) => s.unit_end_time_ms)).toEqual([unit!.end_time_ms, unit!.end_time_ms]);
    // The run was not re-opened by its evaluation: one revision, our own score as it was.
    expect((await harness.pipeline.store!.listUnitRevisions(traceId)).length).toBe(1);
    expect(own.map((s) => s.check)).toEqual(['function_result_present']);
  });

  it.each(['json', 'protobuf', 'grpc'] as const)('an Azure log record before the run was sent (%s)', async (encoding) => {
    const { traceId, rootSpanId, request } = newRun();
    await send('logs', fixture('azure.logs.json', traceId, rootSpanId), encoding);
    await send('traces', request, 'json');
    const { external } = await scoresOf(traceId, 1, 1);
    expect(external.map(seen)).toEqual([
      { ...run, unit_id: traceId, check: 'Relevance', check_version: `external:${AZURE}`, value: 4, passed: true, explanation: `label: pass; The response is relevant: it answers the booking request, though without an alternative date.; from ${AZURE}` },
    ]);
  });

  it("fires an alert rule on an external evaluation's name to a webhook, like one on our own checks", async () => {
    // The AgentCore cases above stored three Builtin.GoalSuccessRate scores, each 0 ("No").
    const created = await fetch(`${harness.pipeline.apiUrl()}/api/v1/alert-rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'goal success below half', kind: 'threshold', check: 'Builtin.GoalSuccessRate', metric: 'mean', threshold: 0.5, window: '1h', min_samples: 3, for_evaluations: 1, notify: [{ type: 'webhook', url: hookUrl }] }),
    });
    expect(created.status).toBe(201);
    const report = await harness.pipeline.alerter!.evaluateOnce();
    expect(report.notifications.map((n) => n.transition)).toEqual(['fire']);
    await harness.pipeline.alerter!.idle();
    expect(hooks.map((h) => [h.rule, h.state, h.kind, h.check, h.value])).toEqual([['goal success below half', 'firing', 'threshold', 'Builtin.GoalSuccessRate', 0]]);
  });

  it.each(['json', 'protobuf', 'grpc'] as const)('an Azure span event sent with the run (%s)', async (encoding) => {
    const { traceId, rootSpanId, request } = newRun();
    const evaluation = fixture('azure.span-event.json', traceId, rootSpanId) as { resourceSpans: unknown[] };
    const both = { resourceSpans: [...(request as { resourceSpans: unknown[] }).resourceSpans, ...evaluation.resourceSpans] };
    await send('traces', both, encoding);
    const { external } = await scoresOf(traceId, 1, 1);
    expect(external.map(seen)).toEqual([
      { ...run, unit_id: traceId, check: 'Relevance', check_version: `external:${AZURE}`, value: 2, passed: false, explanation: `label: fail; The response does not offer another date.; from ${AZURE}` },
    ]);
  });
});
