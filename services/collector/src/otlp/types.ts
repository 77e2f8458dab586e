/** Plain JS attributes: kvlist → object, array → array, int64 → number (or decimal string past 2^53), bytes → base64. */
export type Attributes = Record<string, unknown>;
import { PermanentError } from '../../../../shared/runtime/errors/index.ts';

export interface DecodedEvent {
  name: string;
  timeUnixNano: string;
  attributes: Attributes;
}

export interface DecodedSpan {
  /** Lowercase hex; '' when absent. Validity (length) is checked by the pipeline, per span. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: DecodedEvent[];
  status: { code: number; message: string };
  /**
   * Set by the decoder when the span cannot be accepted (a malformed field, an AnyValue nested
   * deeper than MAX_ANY_VALUE_DEPTH): the pipeline rejects it alone, with this reason.
   */
  invalid?: string;
}

/** A span refused whole before it was decoded: its ids (for the message, lowercase hex or '') and the reason. */
export function refusedSpan(ids: Pick<DecodedSpan, 'traceId' | 'spanId' | 'parentSpanId'>, invalid: string): DecodedSpan {
  return {
    ...ids,
    name: '',
    kind: 0,
    startTimeUnixNano: '0',
    endTimeUnixNano: '0',
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    status: { code: 0, message: '' },
    invalid,
  };
}

export interface DecodedScope {
  name: string;
  version: string;
  /** The scopeSpans' (else the resourceSpans') `schema_url`, when given. */
  schemaUrl?: string;
}

export interface DecodedResource {
  attributes: Attributes;
  droppedAttributesCount: number;
}

interface DecodedScopeSpans {
  scope: DecodedScope;
  spans: DecodedSpan[];
}

interface DecodedResourceSpans {
  resource: DecodedResource;
  scopeSpans: DecodedScopeSpans[];
}

export interface DecodedTraceRequest {
  resourceSpans: DecodedResourceSpans[];
}

export interface DecodedLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  eventName: string;
  body: unknown;
  attributes: Attributes;
  droppedAttributesCount: number;
  traceId: string;
  spanId: string;
  /** As DecodedSpan.invalid. */
  invalid?: string;
}

interface DecodedScopeLogs {
  scope: DecodedScope;
  logRecords: DecodedLogRecord[];
}

interface DecodedResourceLogs {
  resource: DecodedResource;
  scopeLogs: DecodedScopeLogs[];
}

export interface DecodedLogsRequest {
  resourceLogs: DecodedResourceLogs[];
}

export type OtlpEncoding = 'protobuf' | 'json';

/**
 * Thrown while converting one span or log record that cannot be accepted; the decoder turns it
 * into `invalid` on that item, so the rest of the export goes on.
 */
export class InvalidItemError extends PermanentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidItemError';
  }
}

/** Thrown when a body cannot be decoded at all (→ 400 / INVALID_ARGUMENT). */
export class DecodeError extends PermanentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DecodeError';
  }
}

/**
 * An export whose spans are decoded one at a time, when the conversion reaches them: the
 * collector converts a large export in slices with yields to the event loop in between. The
 * export's structure (and everything that fails it as a whole) is checked when it is made, so
 * decoding a span never throws; a span that cannot be accepted comes back with `invalid`.
 */
export interface LazyTraceRequest {
  resourceSpans: Array<{ resource: DecodedResource; scopeSpans: Array<{ scope: DecodedScope; count: number; span(index: number): DecodedSpan }> }>;
}

/** As LazyTraceRequest, for log records. */
export interface LazyLogsRequest {
  resourceLogs: Array<{ resource: DecodedResource; scopeLogs: Array<{ scope: DecodedScope; count: number; logRecord(index: number): DecodedLogRecord }> }>;
}
