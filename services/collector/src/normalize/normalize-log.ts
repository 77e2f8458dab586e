import { EVALUATION_EVENT, type LogRecordEnvelope } from '../../../../shared/contracts/schemas/index.ts';
import type { DecodedLogRecord, DecodedResource, DecodedScope } from '../otlp/types.ts';
import { legacyEventMessage } from './families/legacy-events.ts';
import { DETAILS_EVENT, takeGenAiUsage, takeOtelContent } from './families/otel-genai.ts';
import type { SpanGenAi } from '../../../../shared/contracts/schemas/index.ts';
import { enforceAttributeLimit } from './limits.ts';
import type { NormalizeOptions } from './normalize-span.ts';
import { asString, remove, take } from './values.ts';

/**
 * One OTLP log record (a legacy GenAI message event) → a `log` envelope with its message
 * normalized. The event name comes from `eventName`, or the older `event.name` attribute.
 */
export function normalizeLogRecord(
  record: DecodedLogRecord,
  resource: DecodedResource,
  sequence: number,
  options: NormalizeOptions,
  scope?: DecodedScope,
): LogRecordEnvelope {
  const attrs = record.attributes;
  enforceAttributeLimit(attrs, options.maxAttributeBytes);
  const eventName = record.eventName || asString(take(attrs, 'event.name')) || '';
  if (record.eventName) remove(attrs, 'event.name');
  const parsed = legacyEventMessage(eventName, record.body, attrs);
  const env: LogRecordEnvelope = {
    schema_version: 1,
    kind: 'log',
    trace_id: record.traceId,
    event_name: eventName,
    time_unix_nano: record.timeUnixNano !== '0' ? record.timeUnixNano : record.observedTimeUnixNano,
    sequence,
    is_output: parsed?.isOutput ?? false,
    attributes: attrs,
    received_at_ms: options.receivedAtMs,
  };
  if (record.spanId) env.span_id = record.spanId;
  if (parsed?.message) env.message = parsed.message;
  if (eventName === DETAILS_EVENT) {
    const genai = detailsContent(attrs);
    if (genai) env.genai = genai;
  }
  const serviceName = asString(resource.attributes['service.name']);
  if (serviceName) env.service_name = serviceName;
  // An evaluation's source is named by who sent it: the scope says which evaluator of a service.
  if (eventName === EVALUATION_EVENT && scope?.name) env.scope_name = scope.name.slice(0, 200);
  if (options.project !== undefined) env.project = options.project;
  return env;
}

/** A `gen_ai.client.inference.operation.details` event: one whole model call's content. */
function detailsContent(attrs: Record<string, unknown>): SpanGenAi | undefined {
  const genai: SpanGenAi = { family: 'otel_genai', ...takeOtelContent(attrs) };
  const operation = asString(take(attrs, 'gen_ai.operation.name'));
  if (operation) genai.operation = operation;
  const requestModel = asString(take(attrs, 'gen_ai.request.model'));
  const responseModel = asString(take(attrs, 'gen_ai.response.model'));
  if (requestModel) genai.request_model = requestModel;
  if (responseModel) genai.response_model = responseModel;
  const usage = takeGenAiUsage(attrs);
  if (usage) genai.usage = usage;
  return genai.input_messages || genai.output_messages ? genai : undefined;
}
