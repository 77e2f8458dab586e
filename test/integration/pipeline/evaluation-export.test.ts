import { afterAll, describe, expect, it } from 'vitest';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import { genAiRunsExport } from '../../helpers/genai-run-export.ts';
import { waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';
import { startGrpcLogsReceiver, startHttpLogsReceiver, type LogsReceiver } from '../../helpers/otlp-logs-receiver.ts';

// Every score the scorer writes also goes out as a `gen_ai.evaluation.result` log record, to a
// second OTLP receiver: over HTTP (protobuf) and gRPC, parented to the evaluated trace's root span,
// the receiver's key in its headers. A receiver that refuses at first holds up nothing: the scores
// are stored while it refuses, and the records arrive once it takes them, every retry counted.

const CHECKS = 'function_result_present,task_completed';

/** The attributes a stored score's record must carry, exactly (the receiver's decoder reads ints as numbers). */
function expectedAttributes(s: Score): Record<string, unknown> {
  const label = s.status !== 'ok' ? s.status : s.passed === null ? undefined : s.passed ? 'pass' : 'fail';
  const explanation = s.status === 'ok' ? s.explanation : (s.error ?? s.explanation);
  return {
    'gen_ai.evaluation.name': s.check,
    ...(s.status === 'ok' && s.value !== null ? { 'gen_ai.evaluation.score.value': s.value } : {}),
    ...(label ? { 'gen_ai.evaluation.score.label': label } : {}),
    ...(explanation ? { 'gen_ai.evaluation.explanation': explanation } : {}),
    ...(s.status === 'error' ? { 'error.type': 'tracecheck.check_error' } : {}),
    'gen_ai.agent.name': 'booker',
    'tracecheck.check.version': s.check_version,
    'tracecheck.score.method': s.method,
    'tracecheck.score.status': s.status,
    'tracecheck.unit.id': s.unit_id,
    'tracecheck.unit.kind': 'trace',
    'tracecheck.project': 'default',
    'tracecheck.unit.revision': 1,
    ...(s.judge_model ? { 'tracecheck.judge.model': s.judge_model } : {}),
  };
}

async function metric(h: Harness, name: string): Promise<string> {
  return h.pipeline.metrics.registry.getSingleMetricAsString(name);
}

describe.each([
  { protocol: 'http/protobuf', start: startHttpLogsReceiver },
  { protocol: 'grpc', start: startGrpcLogsReceiver },
] as const)('scores sent out as evaluation records ($protocol)', ({ protocol, start }) => {
  let receiver: LogsReceiver;
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.stop();
    await receiver?.close();
  });

  it('arrive at a second receiver parented to the root span, with every attribute, after it refused twice; the scores were stored meanwhile', async () => {
    receiver = await start();
    receiver.refuse = Number.MAX_SAFE_INTEGER;
    harness = await startPipeline({
      TRACECHECK_CHECKS: CHECKS,
      TRACECHECK_EXPORT_OTLP_ENDPOINT: receiver.endpoint,
      TRACECHECK_EXPORT_OTLP_PROTOCOL: protocol,
      TRACECHECK_EXPORT_OTLP_HEADERS: 'Authorization=Bearer%20receiver-key-1',
    });
    const { ids, body } = genAiRunsExport(1);
    const traceId = ids[0];
    const spans = (JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ spanId: string; parentSpanId?: string }> }> }> }).resourceSpans[0].scopeSpans[0].spans;
    const rootSpanId = spans.find((s) => !s.parentSpanId)!.spanId;
    const sent = await fetch(`${harness.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(sent.status).toBe(200);

    const store = harness.pipeline.store!;
    const stored = await waitFor(
      async () => {
        const scores = await store.queryScores({ unitId: traceId });
        return scores.length === 2 ? scores : null;
      },
      { description: 'the two scores stored', timeoutMs: 60_000 },
    );
    // The receiver refuses: the scores are stored all the same, and the sender keeps trying.
    await waitFor(() => receiver.refused >= 2, { description: 'two refused exports', timeoutMs: 30_000 });
    expect(receiver.records).toEqual([]);
    receiver.refuse = 0;
    const refused = receiver.refused;

    await waitFor(() => receiver.records.length >= 2, { description: 'the two records received', timeoutMs: 60_000 });
    const byCheck = new Map(receiver.records.map((r) => [r.record.attributes['gen_ai.evaluation.name'], r]));
    expect([...byCheck.keys()].sort()).toEqual(['function_result_present', 'task_completed']);
    for (const s of stored) {
      const got = byCheck.get(s.check)!;
      expect(got.record.traceId).toBe(traceId);
      expect(got.record.spanId).toBe(rootSpanId);
      expect(got.record.eventName).toBe('gen_ai.evaluation.result');
      expect(got.record.timeUnixNano).toBe(String(BigInt(s.created_at_ms) * 1_000_000n));
      expect(got.record.attributes).toEqual(expectedAttributes(s));
      expect(got.resource).toEqual({ 'service.name': 'tracecheck' });
      expect(got.scope).toBe('tracecheck.scorer');
    }
    expect(new Set(receiver.authorizations)).toEqual(new Set(['Bearer receiver-key-1']));
    expect(receiver.records).toHaveLength(2);

    const records = await metric(harness, 'tracecheck_evaluation_export_records_total');
    expect(records).toContain('tracecheck_evaluation_export_records_total{outcome="sent"} 2');
    expect(records).not.toMatch(/outcome="(failed|dropped|rejected)"/);
    expect(await metric(harness, 'tracecheck_evaluation_export_retries_total')).toContain(`tracecheck_evaluation_export_retries_total ${refused}`);
  }, 150_000);
});
