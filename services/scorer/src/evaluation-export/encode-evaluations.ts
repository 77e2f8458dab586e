import protobuf from 'protobufjs/minimal.js';
import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';

// A score as the OpenTelemetry GenAI `gen_ai.evaluation.result` event: one OTLP log record,
// parented to the evaluated trace's root span. Written field by field with protobufjs's writer
// (opentelemetry/proto/logs/v1/logs.proto, collector/logs/v1/logs_service.proto): the collector's
// generated module belongs to the collector, and this needs only a handful of fields.

const EVALUATION_EVENT = 'gen_ai.evaluation.result';
/** The instrumentation scope our records carry. */
const EXPORT_SCOPE = 'tracecheck.scorer';
const SEVERITY_INFO = 9;
const SEVERITY_WARN = 13;

/** What one record says, before encoding: attributes in the order they are written. */
export interface EvaluationRecord {
  timeUnixNano: bigint;
  /** 32 lowercase hex digits, or absent (a session unit spans several traces). */
  traceId?: string;
  /** 16 lowercase hex digits: the root span of the evaluated trace, when the unit knows it. */
  spanId?: string;
  severity: number;
  attributes: Array<[string, string | number]>;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

function label(score: Score): string | undefined {
  if (score.status !== 'ok') return score.status;
  if (score.passed === null) return undefined;
  return score.passed ? 'pass' : 'fail';
}

/** One score of `unit` as an evaluation record; attributes of ours under `tracecheck.*`. */
export function evaluationRecord(unit: Unit, score: Score): EvaluationRecord {
  const attributes: Array<[string, string | number]> = [['gen_ai.evaluation.name', score.check]];
  if (score.status === 'ok' && score.value !== null) attributes.push(['gen_ai.evaluation.score.value', score.value]);
  const l = label(score);
  if (l !== undefined) attributes.push(['gen_ai.evaluation.score.label', l]);
  const explanation = score.status === 'ok' ? score.explanation : (score.error ?? score.explanation);
  if (explanation) attributes.push(['gen_ai.evaluation.explanation', explanation]);
  if (score.status === 'error') attributes.push(['error.type', 'tracecheck.check_error']);
  if (unit.conversation_id) attributes.push(['gen_ai.conversation.id', unit.conversation_id]);
  if (unit.agent_name) attributes.push(['gen_ai.agent.name', unit.agent_name]);
  attributes.push(['tracecheck.check.version', score.check_version], ['tracecheck.score.method', score.method], ['tracecheck.score.status', score.status]);
  attributes.push(['tracecheck.unit.id', score.unit_id], ['tracecheck.unit.kind', score.unit_kind], ['tracecheck.project', score.project ?? 'default']);
  if (score.unit_revision !== undefined) attributes.push(['tracecheck.unit.revision', score.unit_revision]);
  if (score.judge_model) attributes.push(['tracecheck.judge.model', score.judge_model]);
  const record: EvaluationRecord = { timeUnixNano: BigInt(Math.round(score.created_at_ms)) * 1_000_000n, severity: score.status === 'error' ? SEVERITY_WARN : SEVERITY_INFO, attributes };
  const traceId = unit.kind === 'trace' ? unit.trace_ids[0] : undefined;
  if (traceId && HEX32.test(traceId)) {
    record.traceId = traceId;
    if (unit.root_span_id && HEX16.test(unit.root_span_id)) record.spanId = unit.root_span_id;
  }
  return record;
}

function fixed64(w: protobuf.Writer, field: number, v: bigint): void {
  w.uint32((field << 3) | 1)
    .fixed32(Number(v & 0xffff_ffffn))
    .fixed32(Number((v >> 32n) & 0xffff_ffffn));
}

function keyValue(w: protobuf.Writer, key: string, value: string | number | boolean): void {
  w.uint32((6 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(key);
  w.uint32((2 << 3) | 2).fork();
  if (typeof value === 'string') w.uint32((1 << 3) | 2).string(value);
  else if (typeof value === 'boolean') w.uint32((2 << 3) | 0).bool(value);
  else if (Number.isInteger(value)) w.uint32((3 << 3) | 0).int64(value);
  else w.uint32((4 << 3) | 1).double(value);
  w.ldelim().ldelim();
}

function encodeRecord(w: protobuf.Writer, r: EvaluationRecord): void {
  w.uint32((2 << 3) | 2).fork(); // ScopeLogs.log_records
  fixed64(w, 1, r.timeUnixNano);
  w.uint32((2 << 3) | 0).int32(r.severity);
  for (const [k, v] of r.attributes) keyValue(w, k, v);
  if (r.traceId) w.uint32((9 << 3) | 2).bytes(Buffer.from(r.traceId, 'hex'));
  if (r.spanId) w.uint32((10 << 3) | 2).bytes(Buffer.from(r.spanId, 'hex'));
  fixed64(w, 11, r.timeUnixNano);
  w.uint32((12 << 3) | 2).string(EVALUATION_EVENT);
  w.ldelim();
}

/**
 * An ExportLogsServiceRequest holding `records` under one resource (`service.name`) and our
 * scope: the body of an OTLP/HTTP protobuf POST and of a gRPC Export call alike.
 */
export function encodeEvaluationRequest(records: readonly EvaluationRecord[], resource: { serviceName: string }): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).fork(); // resource_logs
  w.uint32((1 << 3) | 2).fork(); // resource
  // Resource.attributes is field 1, not LogRecord's 6: written here by hand.
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string('service.name');
  w.uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string(resource.serviceName).ldelim();
  w.ldelim();
  w.ldelim();
  w.uint32((2 << 3) | 2).fork(); // scope_logs
  w.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string(EXPORT_SCOPE).ldelim();
  for (const r of records) encodeRecord(w, r);
  w.ldelim();
  w.ldelim();
  return w.finish();
}

/**
 * The `partial_success.rejected_log_records` of an ExportLogsServiceResponse (0 when absent, or
 * when the body is not one: a receiver that answers 200 took the records).
 */
export function rejectedRecords(body: Uint8Array): number {
  try {
    const r = protobuf.Reader.create(body);
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 !== 1 || (tag & 7) !== 2) {
        r.skipType(tag & 7);
        continue;
      }
      const inner = protobuf.Reader.create(r.bytes());
      while (inner.pos < inner.len) {
        const t = inner.uint32();
        if (t >>> 3 === 1 && (t & 7) === 0) {
          // A Long where the long package is present, else a number.
          const n = inner.int64() as unknown as number | { toNumber(): number };
          return typeof n === 'number' ? n : n.toNumber();
        }
        inner.skipType(t & 7);
      }
    }
  } catch {
    return 0;
  }
  return 0;
}
