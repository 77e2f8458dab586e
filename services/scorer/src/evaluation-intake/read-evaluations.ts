import { EVALUATION_EVENT, type Score, type SpanEnvelope, type Unit } from '../../../../shared/contracts/schemas/index.ts';

// Evaluation events other tools write (`gen_ai.evaluation.result`, OpenTelemetry GenAI
// conventions): as log records (the current form, OTEP 4430) or as span events (the older one),
// read from the span envelopes the collector produces, and written as external scores.

/** Bounds on what an outside record may put in a score (names and sources are keys, explanations text). */
const MAX_NAME = 200;
const MAX_SOURCE = 200;
const MAX_EXPLANATION = 8_000;

/** One evaluation event, as read from a record: what it evaluated and what it said. */
export interface ExternalEvaluation {
  project: string;
  trace_id: string;
  /** The evaluated span (the log record's span, or the span the event is on); absent: the trace. */
  span_id?: string;
  response_id?: string;
  name: string;
  value: number | null;
  label: string | null;
  explanation: string | null;
  /** Who evaluated: the sender's `service.name`, with the instrumentation scope where known. */
  source: string;
  time_ms: number;
}

const PASSING = new Set(['pass', 'passed', 'true', 'yes', 'correct', 'good', 'success', 'relevant', 'grounded']);
const FAILING = new Set(['fail', 'failed', 'false', 'no', 'incorrect', 'bad', 'failure', 'irrelevant', 'ungrounded']);

function text(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t.slice(0, max);
}

function number(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function evaluationOf(attrs: Record<string, unknown>, at: { project: string; trace_id: string; span_id?: string; source: string; time_ms: number }): ExternalEvaluation | null {
  const name = text(attrs['gen_ai.evaluation.name'], MAX_NAME);
  if (!name) return null;
  const e: ExternalEvaluation = {
    ...at,
    name,
    value: number(attrs['gen_ai.evaluation.score.value']),
    label: text(attrs['gen_ai.evaluation.score.label'], MAX_NAME),
    explanation: text(attrs['gen_ai.evaluation.explanation'], MAX_EXPLANATION),
  };
  const responseId = text(attrs['gen_ai.response.id'], MAX_NAME);
  if (responseId) e.response_id = responseId;
  return e;
}

const nanosToMs = (nanos: string): number => Number(BigInt(nanos) / 1_000_000n);

/** The evaluation events a span envelope carries: a log record named so, or a span's events named so. */
export function evaluationsIn(envelope: SpanEnvelope): ExternalEvaluation[] {
  const project = envelope.project ?? 'default';
  if (envelope.kind === 'log') {
    if (envelope.event_name !== EVALUATION_EVENT) return [];
    const source = [envelope.service_name, envelope.scope_name].filter(Boolean).join('/').slice(0, MAX_SOURCE) || 'unknown';
    const e = evaluationOf(envelope.attributes, { project, trace_id: envelope.trace_id, ...(envelope.span_id ? { span_id: envelope.span_id } : {}), source, time_ms: nanosToMs(envelope.time_unix_nano) });
    return e ? [e] : [];
  }
  const source = [envelope.service_name, envelope.scope.name].filter(Boolean).join('/').slice(0, MAX_SOURCE) || 'unknown';
  return envelope.events.flatMap((ev) => {
    if (ev.name !== EVALUATION_EVENT) return [];
    const e = evaluationOf(ev.attributes, { project, trace_id: envelope.trace_id, span_id: envelope.span_id, source, time_ms: nanosToMs(ev.time_unix_nano) });
    return e ? [e] : [];
  });
}

/** A label read as a verdict where it says one (pass/fail, true/false, correct/incorrect, …); else none. */
export function passedOf(label: string | null): boolean | null {
  if (label === null) return null;
  const l = label.toLowerCase();
  return PASSING.has(l) ? true : FAILING.has(l) ? false : null;
}

/**
 * The evaluation as a score of `unit`: `method: "external"`, its check the evaluation's name, its
 * version `external:<source>` (so two tools' evaluations of one name stay two scores, and one
 * tool's repeated event replaces its own).
 */
export function externalScore(unit: Unit, e: ExternalEvaluation, nowMs: number): Score {
  const parts = [e.label !== null ? `label: ${e.label}` : null, e.explanation, `from ${e.source}`].filter((p): p is string => p !== null);
  return {
    schema_version: 1,
    unit_id: unit.unit_id,
    unit_kind: unit.kind,
    check: e.name,
    check_version: `external:${e.source}`,
    status: 'ok',
    value: e.value,
    passed: passedOf(e.label),
    explanation: parts.join('; '),
    method: 'external',
    error: null,
    judge_model: null,
    latency_ms: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    agent_name: unit.agent_name,
    agent_version: unit.agent_version,
    environment: unit.environment,
    service: unit.service,
    unit_end_time_ms: unit.end_time_ms,
    created_at_ms: nowMs,
    ...(unit.project !== undefined ? { project: unit.project } : {}),
  };
}
