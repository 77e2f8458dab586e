import type { LogRecordEnvelope } from '../../../../shared/schemas/index.ts';
import type { DecodedLogRecord, DecodedResource } from '../otlp/types.ts';
import { legacyEventMessage } from './families/legacy-events.ts';
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
  const serviceName = asString(resource.attributes['service.name']);
  if (serviceName) env.service_name = serviceName;
  return env;
}
