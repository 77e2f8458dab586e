import type { SpanGenAi, SpanRecord } from '../../../../shared/contracts/schemas/index.ts';
import type { Attributes, DecodedResource, DecodedScope, DecodedSpan } from '../otlp/types.ts';
import { FAMILY_PRECEDENCE } from './precedence.ts';
import { keyIndexOf, type FamilyFields, type SpanInput } from './families/types.ts';
import { enforceAttributeLimit } from './limits.ts';
import { asString, remove, take, takeString } from './values.ts';

export interface NormalizeOptions {
  maxAttributeBytes: number;
  receivedAtMs: number;
  /** Largest bus record; longer ones are cut to fit (see fit-record.ts). Default 1,000,000 bytes. */
  maxRecordBytes?: number;
  /** The project of the ingest key that sent the export; absent when no keys exist (default project). */
  project?: string;
  /**
   * How far a span's (event's, log record's) time may lie ahead of `receivedAtMs`. Clock skew of
   * seconds or minutes is normal; a time years ahead would date a unit in the future and outlive
   * retention. Past it the span is rejected alone in partialSuccess, never moved (a clamped time
   * would be a made-up one). The collector always sets it (COLLECTOR_DEFAULTS.maxFutureSkewMs);
   * absent: no bound (pure conversions of fixed test data).
   */
  maxFutureSkewMs?: number;
}

const ENV_KEYS = ['deployment.environment.name', 'deployment.environment', 'langfuse.environment'] as const;

function firstString(sources: readonly Attributes[], keys: readonly string[]): string | undefined {
  for (const key of keys) {
    for (const s of sources) {
      const v = asString(s[key]);
      if (v) return v;
    }
  }
  return undefined;
}

/** Messages, or a tool execution's arguments or result, that no earlier family already gave. */
function providesContent(fields: FamilyFields, genai: SpanGenAi): boolean {
  if (fields.input_messages && !genai.input_messages) return true;
  if (fields.output_messages && !genai.output_messages) return true;
  const t = fields.tool_execution;
  return !!t && ((t.arguments !== undefined && genai.tool_execution?.arguments === undefined) || (t.result !== undefined && genai.tool_execution?.result === undefined));
}

/**
 * One decoded OTLP span (with its resource and scope) → a `span` envelope with the `genai`
 * section filled. Pure; `span.attributes` is consumed (mutated) to avoid copying large values.
 */
export function normalizeSpan(span: DecodedSpan, resource: DecodedResource, scope: DecodedScope, options: NormalizeOptions): SpanRecord {
  const attrs = span.attributes;
  let truncated = span.droppedAttributesCount > 0;
  if (enforceAttributeLimit(attrs, options.maxAttributeBytes)) truncated = true;
  for (const e of span.events) if (enforceAttributeLimit(e.attributes, options.maxAttributeBytes)) truncated = true;

  const input: SpanInput = { span, scope, attrs, events: span.events.slice(), keyIndex: keyIndexOf(attrs) };
  const genai: SpanGenAi = {};
  let family: SpanGenAi['family'];
  let firstFamily: SpanGenAi['family'];
  // tracecheck.* first: it is what the agent states about itself.
  const own = takeOwnAttributes(attrs, resource.attributes);
  mergeFirstWins(genai, own);
  let toolFamily: SpanGenAi['family'];
  for (const { family: name, extract } of FAMILY_PRECEDENCE) {
    const fields = extract(input);
    if (!fields) continue;
    firstFamily ??= name;
    if (!family && providesContent(fields, genai)) family = name;
    if (!toolFamily && fields.tool_execution) toolFamily = name;
    mergeFirstWins(genai, fields);
  }
  genai.conversation_id ??=
    takeString(attrs, 'session.id') ??
    takeString(attrs, 'traceloop.association.properties.session_id') ??
    takeString(attrs, 'langfuse.session.id');
  family ??= toolFamily ?? firstFamily ?? (Object.keys(own).length > 0 ? 'tracecheck' : undefined);
  if (family) genai.family = family;

  const res = resource.attributes;
  genai.agent_name ??= asString(res['gen_ai.agent.name']);
  genai.agent_version ??= asString(res['gen_ai.agent.version']) ?? asString(res['service.version']);
  genai.conversation_id ??= asString(res['gen_ai.conversation.id']) ?? asString(res['session.id']);
  if (truncated) genai.truncated = true;
  for (const key of Object.keys(genai) as Array<keyof SpanGenAi>) if (genai[key] === undefined) delete genai[key];

  const environment = firstString([attrs, res], ENV_KEYS);
  for (const k of ENV_KEYS) remove(attrs, k);

  const record: SpanRecord = {
    schema_version: 1,
    kind: 'span',
    trace_id: span.traceId,
    span_id: span.spanId,
    name: span.name,
    span_kind: span.kind,
    start_time_unix_nano: span.startTimeUnixNano,
    end_time_unix_nano: span.endTimeUnixNano,
    status: span.status.message ? { code: span.status.code, message: span.status.message } : { code: span.status.code },
    scope: scope.version ? { name: scope.name, version: scope.version } : { name: scope.name },
    attributes: attrs,
    resource_attributes: res,
    events: input.events.map((e) => ({ name: e.name, time_unix_nano: e.timeUnixNano, attributes: e.attributes })),
    dropped_attributes_count: span.droppedAttributesCount,
    genai,
    received_at_ms: options.receivedAtMs,
  };
  if (span.parentSpanId) record.parent_span_id = span.parentSpanId;
  const serviceName = asString(res['service.name']);
  const serviceVersion = asString(res['service.version']);
  if (serviceName) record.service_name = serviceName;
  if (serviceVersion) record.service_version = serviceVersion;
  if (environment) record.environment = environment;
  if (options.project !== undefined) record.project = options.project;
  return record;
}

/** First family wins per field; tool_execution and usage merge per sub-field (e.g. name from gen_ai.tool.name, arguments from traceloop). */
function mergeFirstWins(target: SpanGenAi, fields: FamilyFields): void {
  for (const key of Object.keys(fields) as Array<keyof FamilyFields>) {
    const value = fields[key];
    if (value === undefined) continue;
    const current = target[key];
    if (current === undefined) (target as Record<string, unknown>)[key] = value;
    else if ((key === 'tool_execution' || key === 'usage') && typeof current === 'object' && typeof value === 'object') {
      (target as Record<string, unknown>)[key] = { ...value, ...current };
    }
  }
}

/** Our own namespace, for what no convention has (documented in services/collector/README.md). */
function takeOwnAttributes(attrs: Attributes, res: Attributes): FamilyFields {
  const out: FamilyFields = {};
  const scenarioInput = takeString(attrs, 'tracecheck.scenario.input');
  const scenarioResult = takeString(attrs, 'tracecheck.scenario.result');
  const simulationId = takeString(attrs, 'tracecheck.simulation.id') ?? asString(res['tracecheck.simulation.id']);
  const agentVersion = takeString(attrs, 'tracecheck.agent.version') ?? asString(res['tracecheck.agent.version']);
  const conversationId = takeString(attrs, 'tracecheck.conversation.id');
  const isTrue = (v: unknown): boolean => v === true || v === 'true';
  if (isTrue(take(attrs, 'tracecheck.session.end'))) out.session_end = true;
  if (isTrue(take(attrs, 'tracecheck.simulation.record'))) out.simulation_record = true;
  if (scenarioInput) out.scenario_input = scenarioInput;
  if (scenarioResult) out.scenario_result = scenarioResult;
  if (simulationId) out.simulation_id = simulationId;
  if (agentVersion) out.agent_version = agentVersion;
  if (conversationId) out.conversation_id = conversationId;
  return out;
}
