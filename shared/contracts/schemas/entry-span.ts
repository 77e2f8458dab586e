import type { SpanRecord } from './span-envelope.v1.ts';

const SERVER = 2;
const CONSUMER = 5;
const ENTRY_OPERATIONS = new Set(['invoke_agent', 'invoke_workflow']);

/**
 * Whether a span can end a trace's part in this service: a true root, or a span where work enters
 * the service (a SERVER or CONSUMER span, an agent or workflow run). An agent called by an
 * instrumented caller has a parent span that is never exported to us; its entry span stands in
 * for the root. The assembler closes a trace on it; the collector stops counting the trace as one
 * waiting for its root (a project's share, services/collector/src/project-shares.ts).
 */
export function isEntrySpan(span: SpanRecord): boolean {
  if (!span.parent_span_id) return true;
  return span.span_kind === SERVER || span.span_kind === CONSUMER || ENTRY_OPERATIONS.has(span.genai.operation ?? '');
}
