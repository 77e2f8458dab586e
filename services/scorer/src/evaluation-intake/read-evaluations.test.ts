import { describe, expect, it } from 'vitest';
import type { SpanEnvelope, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { evaluationsIn, externalScore, passedOf } from './read-evaluations.ts';

const TRACE = 'a'.repeat(32);
const SPAN = 'b'.repeat(16);

const log = (attributes: Record<string, unknown>, over: Partial<Extract<SpanEnvelope, { kind: 'log' }>> = {}): SpanEnvelope => ({
  schema_version: 1, kind: 'log', trace_id: TRACE, span_id: SPAN, event_name: 'gen_ai.evaluation.result', time_unix_nano: '1764410000000000000', sequence: 0, is_output: false,
  attributes: attributes, received_at_ms: 0, service_name: 'evals', scope_name: 'judge.v2', ...over,
});

describe('evaluation events read from span envelopes', () => {
  it('reads a log record: name, value (a number or numeric text), label, explanation, response id; its source is service/scope', () => {
    expect(evaluationsIn(log({ 'gen_ai.evaluation.name': 'Relevance', 'gen_ai.evaluation.score.value': '4.5', 'gen_ai.evaluation.score.label': 'pass', 'gen_ai.evaluation.explanation': ' fine ', 'gen_ai.response.id': 'r-1' }, { project: 'acme' }))).toEqual([
      { project: 'acme', trace_id: TRACE, span_id: SPAN, name: 'Relevance', value: 4.5, label: 'pass', explanation: 'fine', response_id: 'r-1', source: 'evals/judge.v2', time_ms: 1_764_410_000_000 },
    ]);
    // No name: not an evaluation. Another event: nothing. A value that is not a number: none.
    expect(evaluationsIn(log({ 'gen_ai.evaluation.score.value': 1 }))).toEqual([]);
    expect(evaluationsIn(log({ 'gen_ai.evaluation.name': 'x' }, { event_name: 'gen_ai.choice' }))).toEqual([]);
    expect(evaluationsIn(log({ 'gen_ai.evaluation.name': 'x', 'gen_ai.evaluation.score.value': 'high' }, { service_name: undefined, scope_name: undefined }))[0]).toMatchObject({ value: null, source: 'unknown', project: 'default' });
  });

  it('reads the evaluation events of a span, each parented to that span', () => {
    const span = { schema_version: 1, kind: 'span', trace_id: TRACE, span_id: SPAN, name: 'evaluate', span_kind: 1, start_time_unix_nano: '0', end_time_unix_nano: '0', status: { code: 0 }, service_name: 'svc', scope: { name: 'azure.ai.evaluation' }, attributes: {}, resource_attributes: {}, dropped_attributes_count: 0, genai: { family: 'otel_genai' }, received_at_ms: 0,
      events: [{ name: 'gen_ai.evaluation.result', time_unix_nano: '2000000', attributes: { 'gen_ai.evaluation.name': 'Fluency', 'gen_ai.evaluation.score.value': 3 } }, { name: 'exception', time_unix_nano: '0', attributes: {} }] } as unknown as SpanEnvelope;
    expect(evaluationsIn(span)).toEqual([{ project: 'default', trace_id: TRACE, span_id: SPAN, name: 'Fluency', value: 3, label: null, explanation: null, source: 'svc/azure.ai.evaluation', time_ms: 2 }]);
  });

  it('reads a verdict from the labels that say one, and none from the others', () => {
    expect(['Pass', 'TRUE', 'correct', 'fail', 'No', 'incorrect', 'Very Helpful', '4'].map(passedOf)).toEqual([true, true, true, false, false, false, null, null]);
    expect(passedOf(null)).toBeNull();
  });

  it('writes an external score of the unit, its version naming the source', () => {
    const unit = { unit_id: `${TRACE}@acme`, kind: 'trace', agent_name: 'booker', agent_version: 'v2', environment: 'prod', service: 'api', end_time_ms: 5_000, project: 'acme' } as Unit;
    const [e] = evaluationsIn(log({ 'gen_ai.evaluation.name': 'Builtin.Correctness', 'gen_ai.evaluation.score.value': 1, 'gen_ai.evaluation.score.label': 'Perfectly Correct', 'gen_ai.evaluation.explanation': 'Right answer.' }, { project: 'acme' }));
    expect(externalScore(unit, e, 9_000)).toEqual({
      schema_version: 1, unit_id: `${TRACE}@acme`, unit_kind: 'trace', check: 'Builtin.Correctness', check_version: 'external:evals/judge.v2', status: 'ok', value: 1, passed: null,
      explanation: 'label: Perfectly Correct; Right answer.; from evals/judge.v2', method: 'external', error: null, judge_model: null, latency_ms: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0,
      agent_name: 'booker', agent_version: 'v2', environment: 'prod', service: 'api', unit_end_time_ms: 5_000, created_at_ms: 9_000, project: 'acme',
    });
  });
});
