import protobuf from 'protobufjs/minimal.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createMetrics } from '../../../../shared/kit/metrics/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { evaluationRecord } from './encode-evaluations.ts';
import { createEvaluationExporter } from './exporter.ts';
import type { OtlpSender, SendOutcome } from './send-otlp.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const ROOT = 'b7ad6b7169203331';

const unit = { unit_id: TRACE, kind: 'trace', trace_ids: [TRACE], root_span_id: ROOT, conversation_id: 'conv-7', agent_name: 'booker' } as unknown as Unit;
function score(check: string, over: Partial<Score> = {}): Score {
  return {
    schema_version: 1, unit_id: TRACE, unit_kind: 'trace', check, check_version: '3', status: 'ok', value: 1, passed: true, explanation: 'all results present', method: 'deterministic', error: null,
    judge_model: null, latency_ms: 2, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'booker', agent_version: 'v1', environment: null, service: 'svc', unit_end_time_ms: 1_000, created_at_ms: 1_764_400_000_123, ...over,
  };
}

/** Log records in an ExportLogsServiceRequest: resource_logs(1) → scope_logs(2) → log_records(2). */
function recordsIn(body: Uint8Array): number {
  const fields = (bytes: Uint8Array, want: number): Uint8Array[] => {
    const r = protobuf.Reader.create(bytes);
    const out: Uint8Array[] = [];
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 === want && (tag & 7) === 2) out.push(r.bytes());
      else r.skipType(tag & 7);
    }
    return out;
  };
  return fields(body, 1).flatMap((rl) => fields(rl, 2)).flatMap((sl) => fields(sl, 2)).length;
}

function fakeSender(answers: SendOutcome[]) {
  const sent: number[] = [];
  const sender: OtlpSender & { sent: number[]; closed: boolean } = {
    sent,
    closed: false,
    send(body) {
      sent.push(recordsIn(body));
      return Promise.resolve(answers.shift() ?? { kind: 'sent', rejected: 0 });
    },
    close() {
      sender.closed = true;
    },
  };
  return sender;
}

async function counter(metrics: ReturnType<typeof createMetrics>, name: string): Promise<Record<string, number>> {
  const text = await metrics.registry.getSingleMetricAsString(name);
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(\S+?)(?:\{outcome="(\w+)"\})? (\d+)$/gm)) out[m[2] ?? m[1]] = Number(m[3]);
  return out;
}

describe('evaluation exporter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes a score as the evaluation event, parented to the root span, our own attributes under tracecheck.*', () => {
    expect(evaluationRecord(unit, score('function_result_present', { unit_revision: 2 }))).toEqual({
      timeUnixNano: 1_764_400_000_123_000_000n,
      traceId: TRACE,
      spanId: ROOT,
      severity: 9,
      attributes: [
        ['gen_ai.evaluation.name', 'function_result_present'],
        ['gen_ai.evaluation.score.value', 1],
        ['gen_ai.evaluation.score.label', 'pass'],
        ['gen_ai.evaluation.explanation', 'all results present'],
        ['gen_ai.conversation.id', 'conv-7'],
        ['gen_ai.agent.name', 'booker'],
        ['tracecheck.check.version', '3'],
        ['tracecheck.score.method', 'deterministic'],
        ['tracecheck.score.status', 'ok'],
        ['tracecheck.unit.id', TRACE],
        ['tracecheck.unit.kind', 'trace'],
        ['tracecheck.project', 'default'],
        ['tracecheck.unit.revision', 2],
      ],
    });
    const failed = evaluationRecord(unit, score('task_completed', { status: 'error', value: null, passed: null, error: 'judge timed out', method: 'model', judge_model: 'gpt-4o-mini', project: 'acme' }));
    expect(failed.severity).toBe(13);
    expect(failed.attributes.filter(([k]) => !k.startsWith('gen_ai.agent') && !k.startsWith('gen_ai.conversation'))).toEqual([
      ['gen_ai.evaluation.name', 'task_completed'],
      ['gen_ai.evaluation.score.label', 'error'],
      ['gen_ai.evaluation.explanation', 'judge timed out'],
      ['error.type', 'tracecheck.check_error'],
      ['tracecheck.check.version', '3'],
      ['tracecheck.score.method', 'model'],
      ['tracecheck.score.status', 'error'],
      ['tracecheck.unit.id', TRACE],
      ['tracecheck.unit.kind', 'trace'],
      ['tracecheck.project', 'acme'],
      ['tracecheck.judge.model', 'gpt-4o-mini'],
    ]);
    // A session spans traces: no parent. A trace id that is not one (a hostile span's) is not sent as one.
    const session = { ...unit, kind: 'session', unit_id: 'session:conv-7', trace_ids: [TRACE, TRACE] } as Unit;
    expect(evaluationRecord(session, score('x')).traceId).toBeUndefined();
    const odd = { ...unit, trace_ids: ['not-hex'], root_span_id: 'zz' } as Unit;
    expect([evaluationRecord(odd, score('x')).traceId, evaluationRecord(odd, score('x')).spanId]).toEqual([undefined, undefined]);
  });

  it('batches what arrives within the flush delay, and sends a full batch at once', async () => {
    const sender = fakeSender([]);
    const metrics = createMetrics({ defaultMetrics: false });
    const exporter = createEvaluationExporter({ sender, protocol: 'http/protobuf', endpoint: 'http://u:p@otel:4318/?k=1', maxQueue: 100, maxBatch: 4, flushDelayMs: 1_000, resource: { serviceName: 'tracecheck' }, metrics, log: createSilentLogger() });
    exporter.add(unit, [score('a'), score('b')]);
    exporter.add(unit, [score('c')]);
    expect(sender.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(999);
    expect(sender.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sender.sent).toEqual([3]);
    exporter.add(unit, [score('a'), score('b'), score('c'), score('d'), score('e')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.sent).toEqual([3, 4]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sender.sent).toEqual([3, 4, 1]);
    await exporter.idle();
    expect(exporter.status()).toEqual({ protocol: 'http/protobuf', endpoint: 'http://otel:4318/', sent: 8, rejected: 0, failed: 0, dropped: 0, retries: 0, queued: 0, last_error: null, last_error_at_ms: null });
    expect(await counter(metrics, 'tracecheck_evaluation_export_records_total')).toEqual({ sent: 8 });
  });

  it('retries a retryable failure with doubling waits, gives up after the attempts, and never retries a permanent one', async () => {
    const down: SendOutcome = { kind: 'retriable', error: 'POST http://otel:4318/v1/logs: HTTP 503' };
    const sender = fakeSender([down, down, { kind: 'sent', rejected: 1 }, down, down, down, { kind: 'permanent', error: 'POST http://otel:4318/v1/logs: HTTP 401' }]);
    const metrics = createMetrics({ defaultMetrics: false });
    const now = (): number => Date.now();
    const exporter = createEvaluationExporter({ sender, protocol: 'http/protobuf', endpoint: 'http://otel:4318', maxQueue: 100, maxBatch: 2, flushDelayMs: 10, initialBackoffMs: 100, maxBackoffMs: 150, maxAttempts: 3, resource: { serviceName: 'tracecheck' }, metrics, log: createSilentLogger(), nowMs: now });
    exporter.add(unit, [score('a'), score('b')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.sent).toEqual([2]);
    await vi.advanceTimersByTimeAsync(99);
    expect(sender.sent).toEqual([2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sender.sent).toEqual([2, 2]);
    await vi.advanceTimersByTimeAsync(150);
    expect(sender.sent).toEqual([2, 2, 2]);
    // The receiver took one of two: one rejected.
    expect(exporter.status()).toMatchObject({ sent: 1, rejected: 1, retries: 2, last_error: 'the receiver rejected 1 of 2 records' });
    exporter.add(unit, [score('c'), score('d')]);
    await vi.advanceTimersByTimeAsync(250);
    expect(sender.sent).toEqual([2, 2, 2, 2, 2, 2]);
    expect(exporter.status()).toMatchObject({ sent: 1, rejected: 1, failed: 2, retries: 4, last_error: 'POST http://otel:4318/v1/logs: HTTP 503' });
    exporter.add(unit, [score('e')]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sender.sent).toEqual([2, 2, 2, 2, 2, 2, 1]);
    expect(exporter.status()).toMatchObject({ sent: 1, rejected: 1, failed: 3, retries: 4, queued: 0, last_error: 'POST http://otel:4318/v1/logs: HTTP 401' });
    expect(await counter(metrics, 'tracecheck_evaluation_export_records_total')).toEqual({ sent: 1, rejected: 1, failed: 3 });
    expect(await counter(metrics, 'tracecheck_evaluation_export_retries_total')).toEqual({ tracecheck_evaluation_export_retries_total: 4 });
  });

  it('drops the oldest past its bound while the receiver is down, and gives up what is left at close', async () => {
    const down: SendOutcome = { kind: 'retriable', error: 'gRPC otel:4317: UNAVAILABLE' };
    const sender = fakeSender(Array.from({ length: 50 }, () => down));
    const exporter = createEvaluationExporter({ sender, protocol: 'grpc', endpoint: 'http://otel:4317', maxQueue: 5, maxBatch: 2, flushDelayMs: 10, initialBackoffMs: 1_000, maxAttempts: 10, resource: { serviceName: 'tracecheck' }, log: createSilentLogger() });
    exporter.add(unit, [score('a'), score('b')]);
    await vi.advanceTimersByTimeAsync(0);
    // Two in flight (retrying), five waiting, three dropped: adding never waits for the receiver.
    exporter.add(unit, ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((c) => score(c)));
    expect(exporter.status()).toMatchObject({ queued: 5, dropped: 3, failed: 0 });
    const closing = exporter.close(1_500);
    await vi.advanceTimersByTimeAsync(1_500);
    await closing;
    // The batch in backoff tried again at close; the deadline then passed: all seven given up, counted.
    expect(exporter.status()).toMatchObject({ sent: 0, failed: 7, dropped: 3, queued: 0 });
    expect(sender.closed).toBe(true);
  });
});
