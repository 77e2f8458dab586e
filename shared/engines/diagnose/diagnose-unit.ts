import type { ReceivedScope, Unit } from '../../contracts/schemas/index.ts';
import { familyFix, instrumentationOf } from './instrumentations.ts';

// What a unit is missing and which setting fixes it, worked out at read time from the
// stored unit: its dialog, its tool calls and what it was built from (`received`, per
// instrumentation scope). Computed, never stored, so a better message reaches old units too. Pure.

export const DIAGNOSTIC_CODES = ['content_by_reference', 'content_not_captured', 'logs_not_received', 'tool_result_missing', 'root_missing', 'no_model_calls'] as const;
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export interface Diagnostic {
  /** Stable: clients may match on it. */
  code: DiagnosticCode;
  /** What is missing, naming the instrumentation it came from. */
  message: string;
  /** The setting or change that fixes it. */
  fix: string;
  /** The instrumentation scope it is about (`name version`), when one is. */
  scope: string | null;
}

const MAX_LISTED_CALLS = 3;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const scopeText = (s: Pick<ReceivedScope, 'name' | 'version'>): string => (s.version ? `${s.name} ${s.version}` : s.name);

/** Whether any message of the unit carries text (a dialog with empty turns only is no dialog). */
export function hasMessageText(unit: Unit): boolean {
  const text = (c: string | null): boolean => c !== null && c.trim() !== '';
  return unit.message_history.some((m) => text(m.content)) || unit.model_input.some((m) => text(m.content)) || text(unit.model_output);
}

function contentDiagnostics(unit: Unit): Diagnostic[] {
  const received = unit.received;
  if (!received) {
    if (!unit.llm_calls) return [];
    return [
      {
        code: 'content_not_captured',
        message: `${plural(unit.llm_calls, 'model call')} carried no message text, so the checks that read the dialog cannot run.`,
        fix: `${familyFix(null)} (This unit was stored before tracecheck recorded which instrumentation sent it; newer units name it.)`,
        scope: null,
      },
    ];
  }
  const out: Diagnostic[] = [];
  for (const s of received.scopes) {
    if (s.model_calls === 0 || s.model_calls_with_content > 0) continue;
    const known = instrumentationOf(s);
    const from = known ? `${known.library}, instrumentation scope ${scopeText(s)}` : `instrumentation scope ${scopeText(s)}`;
    out.push({
      code: 'content_not_captured',
      message: `${plural(s.model_calls, 'model call')} carried no message text, so the checks that read the dialog cannot run. They came from ${from}.`,
      fix: known?.contentFix ?? familyFix(s.family),
      scope: scopeText(s),
    });
    if (known?.logsFix && s.logs === 0) {
      out.push({
        code: 'logs_not_received',
        message: `${known.library} sends the messages as log records, and none arrived with this trace.`,
        fix: known.logsFix,
        scope: scopeText(s),
      });
    }
  }
  if (out.length === 0 && received.scopes.every((s) => s.model_calls === 0)) {
    const names = received.scopes.map(scopeText);
    out.push({
      code: 'no_model_calls',
      message: `None of the ${plural(unit.span_count, 'span')} is a model call with GenAI attributes (scopes: ${names.join(', ') || 'none'}).`,
      fix: 'Instrument the model client as well as the agent, e.g. with opentelemetry-instrumentation-openai-v2 (Python) or @opentelemetry/instrumentation-openai (Node.js): docs/sending-traces.md has a recipe per library.',
      scope: null,
    });
  }
  return out;
}

function toolResultDiagnostics(unit: Unit): Diagnostic[] {
  const missing = unit.tool_calls.filter((c) => c.result === null && c.error === null);
  if (missing.length === 0) return [];
  const listed = missing.slice(0, MAX_LISTED_CALLS).map((c) => `${c.name} (${c.id})`);
  const more = missing.length > MAX_LISTED_CALLS ? `, and ${missing.length - MAX_LISTED_CALLS} more` : '';
  return [
    {
      code: 'tool_result_missing',
      message: `${missing.length} of ${plural(unit.tool_calls.length, 'tool call')} ${missing.length === 1 ? 'has' : 'have'} no result: ${listed.join(', ')}${more}.`,
      fix: "A result reaches the unit as a tool message in the next model call's input, or on the tool's own span (gen_ai.tool.call.result on an execute_tool span, output.value on an OpenInference TOOL span, ai.toolCall.result on the AI SDK's ai.toolCall). If the run ended right after the call, the agent never sent the model a result.",
      scope: null,
    },
  ];
}

function rootDiagnostics(unit: Unit): Diagnostic[] {
  if (unit.kind !== 'trace' || unit.received?.root !== 'none') return [];
  return [
    {
      code: 'root_missing',
      message: `The trace's root span has not arrived: this unit was built from ${plural(unit.span_count, 'span')} whose parent is missing, so it may be part of a longer run.`,
      fix: 'Spans are exported when they end: make sure the outermost span of the run ends, and that the process flushes its exporter before it exits (forceFlush() or shutdown() on the tracer provider). If the root belongs to another service, export that service to this collector too.',
      scope: null,
    },
  ];
}

const REF_FIX =
  "The instrumentation uploads prompts and completions and records only their URIs (gen_ai.input.messages.ref / gen_ai.output.messages.ref); the scorer reads them back only from the prefixes the operator allows (TRACECHECK_CONTENT_REF_ALLOW, docs/configuration.md). Allow where they are uploaded, or record the content on the spans instead: turn the instrumentation's upload hook off (in Python's opentelemetry-util-genai, unset OTEL_INSTRUMENTATION_GENAI_UPLOAD_HOOK) and keep content capture on.";

/**
 * Why checks that read the dialog cannot run on this unit, when its messages arrived by reference
 * and no text did; null otherwise.
 */
export function contentByReferenceReason(unit: Unit): string | null {
  const refs = unit.content_refs ?? [];
  if (refs.length === 0 || hasMessageText(unit)) return null;
  const first = refs[0].input ?? refs[0].output ?? refs[0].system ?? '';
  return `the unit's messages were recorded by reference (${plural(refs.length, 'model call')}, e.g. ${first}), not as text: there is no dialog to check`;
}

function referenceDiagnostics(unit: Unit): Diagnostic[] {
  const reason = contentByReferenceReason(unit);
  if (reason === null) return [];
  const uris = (unit.content_refs ?? []).flatMap((r) => [r.input, r.output, r.system]).filter((u): u is string => u !== undefined);
  return [
    {
      code: 'content_by_reference',
      message: `${plural(unit.content_refs!.length, 'model call')} recorded the messages as references to uploaded content, so the checks that read the dialog cannot run: ${uris.slice(0, MAX_LISTED_CALLS).join(', ')}${uris.length > MAX_LISTED_CALLS ? `, and ${uris.length - MAX_LISTED_CALLS} more` : ''}.`,
      fix: REF_FIX,
      scope: null,
    },
  ];
}

/** What the unit is missing, most important first; empty when nothing is. */
export function diagnoseUnit(unit: Unit): Diagnostic[] {
  // Content by reference is the cause of the missing text: said once, instead of "not captured".
  const byReference = referenceDiagnostics(unit);
  // Without any text, a tool call's missing result is the same missing content: one cause, one message.
  const content = byReference.length > 0 ? byReference : hasMessageText(unit) ? [] : contentDiagnostics(unit);
  return [...content, ...(content.length > 0 ? [] : toolResultDiagnostics(unit)), ...rootDiagnostics(unit)];
}
