import { describe, expect, it } from 'vitest';
import type { LogRecordEnvelope } from '../../../shared/contracts/schemas/index.ts';
import { createTestSpan, user } from '../../../test/helpers/span-factory.ts';
import { assembleSession } from './assemble-session.ts';
import { assembleTrace } from './assemble-trace.ts';
import { mergeReceived, receivedOf } from './unit-received.ts';

const TRACE = 'b'.repeat(32);

function log(spanId: string, content: string): LogRecordEnvelope {
  return { schema_version: 1, kind: 'log', trace_id: TRACE, span_id: spanId, event_name: 'gen_ai.user.message', time_unix_nano: '1', sequence: 0, message: user(content), is_output: false, attributes: {}, received_at_ms: 0 };
}

describe('receivedOf: what a trace was built from, per scope', () => {
  const genai = { name: '@opentelemetry/instrumentation-openai', version: '0.21.0' };
  const root = createTestSpan({ trace_id: TRACE, span_id: '0000000000000a01', name: 'agent run', scope: { name: 'my-agent' } });
  const quiet = createTestSpan({ trace_id: TRACE, span_id: '0000000000000a02', parent_span_id: root.span_id, name: 'chat gpt-4o', scope: genai, genai: { family: 'otel_genai', operation: 'chat', request_model: 'gpt-4o' } });
  const spoken = createTestSpan({ trace_id: TRACE, span_id: '0000000000000a03', parent_span_id: root.span_id, name: 'chat gpt-4o', scope: genai, genai: { family: 'otel_genai', operation: 'chat', request_model: 'gpt-4o' } });
  const tool = createTestSpan({ trace_id: TRACE, span_id: '0000000000000a04', parent_span_id: root.span_id, name: 'execute_tool lookup', scope: { name: 'my-agent' }, genai: { family: 'otel_genai', tool_execution: { name: 'lookup' } } });

  it('counts model calls with and without text (on the span or in its log records), tool executions with results, log records per scope', () => {
    // An empty message record (content capture off in the default conventions) is no content.
    const received = receivedOf([root, quiet, spoken, tool], [log(quiet.span_id, ''), log(spoken.span_id, 'Weather in Paris?')], root);
    expect(received).toEqual({
      root: 'span',
      root_name: 'agent run',
      logs: 2,
      scopes: [
        { name: '@opentelemetry/instrumentation-openai', version: '0.21.0', family: 'otel_genai', spans: 2, span_names: ['chat gpt-4o'], logs: 2, model_calls: 2, model_calls_with_content: 1, tool_executions: 0, tool_executions_with_result: 0 },
        { name: 'my-agent', version: null, family: 'otel_genai', spans: 2, span_names: ['agent run', 'execute_tool lookup'], logs: 0, model_calls: 0, model_calls_with_content: 0, tool_executions: 1, tool_executions_with_result: 0 },
      ],
    });
  });

  it('says whether the root came, an entry span stands in, or neither; the assembled unit carries it', () => {
    const orphan = createTestSpan({ trace_id: TRACE, parent_span_id: 'f'.repeat(16), name: 'chat gpt-4o', scope: genai, genai: { operation: 'chat' } });
    expect(receivedOf([orphan], [], undefined).root).toBe('none');
    expect(assembleTrace({ traceId: TRACE, spans: [orphan], logs: [] }, 0).received?.root).toBe('none');
    expect(assembleTrace({ traceId: TRACE, spans: [root, quiet], logs: [] }, 0).received?.scopes.map((s) => [s.name, s.model_calls, s.model_calls_with_content])).toEqual([
      ['@opentelemetry/instrumentation-openai', 1, 0],
      ['my-agent', 0, 0],
    ]);
  });

  it('a session sums its traces per scope and keeps the worst root; units from before have none', () => {
    const a = assembleTrace({ traceId: TRACE, spans: [root, quiet], logs: [] }, 0);
    const b = { ...assembleTrace({ traceId: 'c'.repeat(32), spans: [spoken], logs: [] }, 0), conversation_id: 's1' };
    const session = assembleSession(null, [a, b], 's1', 0);
    expect(session.received?.root).toBe('none');
    expect(session.received?.scopes[0]).toMatchObject({ name: '@opentelemetry/instrumentation-openai', spans: 2, model_calls: 2 });
    expect(mergeReceived([undefined, undefined])).toBeUndefined();
    expect(assembleSession(null, [{ ...a, received: undefined }], 's1', 0).received).toBeUndefined();
  });
});
