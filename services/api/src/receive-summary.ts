import type { GenAiFamily, Unit } from '../../../shared/contracts/schemas/index.ts';
import { diagnoseUnit, hasMessageText, type DiagnosticCode } from '../../../shared/engines/diagnose/index.ts';

// "What we receive", per service: the latest trace units' root spans, the instrumentation scopes
// they came from with their convention family and whether content arrived, and what is missing
// (the units' diagnostics, grouped). Derived from stored units, so it is the same whichever
// process received the spans (the API runs apart from the collector on Kafka). Pure.

interface ReceivedUnit {
  unit_id: string;
  end_time_ms: number;
  root_name: string | null;
  span_count: number;
  /** Message text arrived; null for a unit with no model call. */
  content: boolean | null;
  scopes: string[];
}

interface ReceivedScopeSummary {
  name: string;
  version: string | null;
  family: GenAiFamily | null;
  units: number;
  spans: number;
  span_names: string[];
  model_calls: number;
  model_calls_with_content: number;
  logs: number;
}

interface ReceiveWarning {
  code: DiagnosticCode;
  scope: string | null;
  /** The latest unit's message and fix. */
  message: string;
  fix: string;
  /** How many of the service's units listed here have it; `example_unit` is the latest of them. */
  units: number;
  example_unit: string;
}

export interface ServiceReceipt {
  /** `service.name`; null for spans without one. */
  service: string | null;
  last_seen_ms: number;
  units: ReceivedUnit[];
  scopes: ReceivedScopeSummary[];
  /** Whether message text arrived: `all`/`some`/`none` of its units with model calls, or `no_model_calls`. */
  content: 'all' | 'some' | 'none' | 'no_model_calls';
  warnings: ReceiveWarning[];
}

const MAX_SPAN_NAMES = 5;

const scopeKey = (name: string, version: string | null): string => `${name}\u0000${version ?? ''}`;

/** The summary of one service's units, newest first. */
export function summarizeService(service: string | null, units: readonly Unit[]): ServiceReceipt {
  const scopes = new Map<string, ReceivedScopeSummary>();
  const warnings = new Map<string, ReceiveWarning>();
  const listed: ReceivedUnit[] = [];
  let withCalls = 0;
  let withContent = 0;
  for (const u of units) {
    const calls = u.llm_calls ?? u.received?.scopes.reduce((n, s) => n + s.model_calls, 0) ?? 0;
    const content = calls > 0 ? hasMessageText(u) : null;
    if (content !== null) {
      withCalls++;
      if (content) withContent++;
    }
    const received = u.received?.scopes ?? [];
    listed.push({ unit_id: u.unit_id, end_time_ms: u.end_time_ms, root_name: u.received?.root_name ?? null, span_count: u.span_count, content, scopes: received.map((s) => (s.version ? `${s.name} ${s.version}` : s.name)) });
    for (const s of received) {
      const key = scopeKey(s.name, s.version);
      const seen = scopes.get(key) ?? { name: s.name, version: s.version, family: s.family, units: 0, spans: 0, span_names: [], model_calls: 0, model_calls_with_content: 0, logs: 0 };
      seen.family ??= s.family;
      seen.units++;
      seen.spans += s.spans;
      seen.model_calls += s.model_calls;
      seen.model_calls_with_content += s.model_calls_with_content;
      seen.logs += s.logs;
      for (const n of s.span_names) if (seen.span_names.length < MAX_SPAN_NAMES && !seen.span_names.includes(n)) seen.span_names.push(n);
      scopes.set(key, seen);
    }
    for (const d of diagnoseUnit(u)) {
      const key = `${d.code}\u0000${d.scope ?? ''}`;
      const seen = warnings.get(key);
      if (seen) seen.units++;
      else warnings.set(key, { code: d.code, scope: d.scope, message: d.message, fix: d.fix, units: 1, example_unit: u.unit_id });
    }
  }
  return {
    service,
    last_seen_ms: units.reduce((t, u) => Math.max(t, u.end_time_ms), 0),
    units: listed,
    scopes: [...scopes.values()].sort((a, b) => b.spans - a.spans || a.name.localeCompare(b.name)),
    content: withCalls === 0 ? 'no_model_calls' : withContent === withCalls ? 'all' : withContent === 0 ? 'none' : 'some',
    warnings: [...warnings.values()],
  };
}
