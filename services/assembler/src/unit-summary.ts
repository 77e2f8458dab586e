import type { SpanRecord, TokenUsage, Unit } from '../../../shared/contracts/schemas/index.ts';
import type { TraceParts } from './assemble-trace.ts';
import { ancestorsOf, STATUS_ERROR } from './span-tree.ts';

/** Usage is summed over the innermost spans that report it, so a wrapper's total is not counted twice. */
export function sumUsage(spans: readonly SpanRecord[]): TokenUsage {
  const withUsage = spans.filter((s) => s.genai.usage && Object.keys(s.genai.usage).length > 0);
  const wrappers = ancestorsOf(withUsage, spans);
  const total: Required<Pick<TokenUsage, 'input_tokens' | 'output_tokens'>> & TokenUsage = { input_tokens: 0, output_tokens: 0 };
  for (const s of withUsage) {
    if (wrappers.has(s.span_id)) continue;
    const u = s.genai.usage!;
    total.input_tokens += u.input_tokens ?? 0;
    total.output_tokens += u.output_tokens ?? 0;
    for (const k of ['cache_read_input_tokens', 'cache_creation_input_tokens', 'reasoning_tokens'] as const) {
      if (u[k] !== undefined) total[k] = (total[k] ?? 0) + u[k];
    }
  }
  return total;
}

/** `type` of the unit error that flags a span id sent more than once with different contents. */
const DUPLICATE_SPAN_ID = 'tracecheck.duplicate_span_id';
/** `type` of the unit error that says spans were left out for the per-trace cap. */
const SPAN_LIMIT = 'tracecheck.span_limit';
const MAX_DUPLICATE_ERRORS = 100;

/**
 * Span ids that more than one kept span carries, with their count. The buffer keeps every copy
 * that differs (an exact re-send is dropped there), so two here are two different spans that
 * claim one id: a faulty or hostile exporter. Both count; the unit says so.
 */
function duplicateSpanIds(spans: readonly SpanRecord[]): Array<[string, number]> {
  const count = new Map<string, number>();
  for (const s of spans) count.set(s.span_id, (count.get(s.span_id) ?? 0) + 1);
  const out: Array<[string, number]> = [];
  for (const [id, n] of count) if (n > 1) out.push([id, n]);
  return out;
}

const MAX_ATTRIBUTES = 64;
const MAX_ATTRIBUTE_CHARS = 256;

/** Short scalar attributes of the resource and the root span (the root's win), for monitor filters. */
export function unitAttributes(root: SpanRecord | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const attrs of [root?.resource_attributes, root?.attributes]) {
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
      const text = String(v);
      if (text.length > MAX_ATTRIBUTE_CHARS || (!(k in out) && Object.keys(out).length >= MAX_ATTRIBUTES)) continue;
      out[k] = text;
    }
  }
  return out;
}

/** The unit's errors: spans that ended in error, then what the assembler noticed (no root, a fragment, duplicate ids, the span cap). */
export function unitErrors(spans: readonly SpanRecord[], parts: TraceParts, root: SpanRecord | undefined): Unit['errors'] {
  const errors: Unit['errors'] = spans
    .filter((s) => s.status.code === STATUS_ERROR)
    .map((s) => {
      const exc = s.events.find((e) => e.name === 'exception');
      const excType = exc?.attributes['exception.type'];
      const excMessage = exc?.attributes['exception.message'];
      const type = typeof s.attributes['error.type'] === 'string' ? (s.attributes['error.type']) : typeof excType === 'string' ? excType : undefined;
      const message = s.status.message || (typeof excMessage === 'string' ? excMessage : '') || `span "${s.name}" ended with error status`;
      return type ? { span_id: s.span_id, type, message } : { span_id: s.span_id, message };
    });
  if (parts.unitId) errors.push({ message: `late spans of trace ${parts.traceId}, which was already scored as unit ${parts.projectUnitId ?? parts.traceId}; scored apart so as not to replace it` });
  else if (!root) errors.push({ message: 'root span never arrived; unit assembled from the spans seen' });
  const duplicates = duplicateSpanIds(spans);
  for (const [spanId, copies] of duplicates.slice(0, MAX_DUPLICATE_ERRORS)) {
    errors.push({ span_id: spanId, type: DUPLICATE_SPAN_ID, message: `span id ${spanId} arrived ${copies} times with different contents; every copy is kept` });
  }
  if (duplicates.length > MAX_DUPLICATE_ERRORS) {
    errors.push({ type: DUPLICATE_SPAN_ID, message: `${duplicates.length - MAX_DUPLICATE_ERRORS} more span ids arrived more than once with different contents; every copy is kept` });
  }
  const dropped = parts.dropped;
  if (dropped && (dropped.spans > 0 || dropped.logs > 0)) {
    errors.push({ type: SPAN_LIMIT, message: `the trace had more records than the limit of ${dropped.maxSpans} spans per trace: ${dropped.spans} spans and ${dropped.logs} log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)` });
  }
  return errors;
}

/** Model calls listed by reference at most; a run of more names the first ones. */
const MAX_CONTENT_REFS = 20;
const MAX_URI_CHARS = 1_000;

/** The spans whose messages were recorded by reference, with their URIs (cut to a bound). */
export function contentRefsOf(spans: readonly SpanRecord[]): NonNullable<Unit['content_refs']> {
  const out: NonNullable<Unit['content_refs']> = [];
  for (const s of spans) {
    const refs = s.genai.content_refs;
    if (!refs || out.length >= MAX_CONTENT_REFS) continue;
    const entry: NonNullable<Unit['content_refs']>[number] = { span_id: s.span_id };
    for (const k of ['input', 'output', 'system'] as const) if (refs[k] !== undefined) entry[k] = refs[k].slice(0, MAX_URI_CHARS);
    out.push(entry);
  }
  return out;
}
