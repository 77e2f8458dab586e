import { deflateSync, inflateSync } from 'node:zlib';

/**
 * A record held while its trace (or session) is open, as compact JSON in UTF-8, deflated only when
 * it is very large. Records are parsed back once, when the trace is assembled. The form is private
 * to this process (spilled to a file it deletes, never stored or sent), so the dictionary may change freely.
 */

/**
 * Below this many JSON characters a record is kept as is. The records live in spill files, not on
 * the heap, so deflating a usual span (1–3 KB, to about a fifth) saves only disk and page cache,
 * for 30–40 µs of main-thread CPU a span (a zlib stream set up per call) against 5–10 µs as JSON
 * (2026-11-23, bench/results/e2e.md). A record this large (a long history re-sent) is deflated:
 * there the bytes saved are worth the call.
 */
const DEFLATE_FROM_CHARS = 64 * 1024;

/** Strings every span envelope repeats: deflate refers back to them instead of spelling them out. */
const DICTIONARY = Buffer.from(
  [
    '{"schema_version":1,"kind":"span","trace_id":"","span_id":"","parent_span_id":"","name":"","span_kind":1,',
    '"start_time_unix_nano":"","end_time_unix_nano":"","status":{"code":0},"service_name":"","service_version":"",',
    '"environment":"","scope":{"name":"","version":""},"attributes":{},"resource_attributes":{"service.name":"",',
    '"deployment.environment.name":"","telemetry.sdk.language":"","telemetry.sdk.name":"opentelemetry"},"events":[],',
    '"dropped_attributes_count":0,"genai":{"family":"otel_genai","operation":"chat","input_messages":[{"role":"system",',
    '"content":""},{"role":"user","content":""}],"output_messages":[{"role":"assistant","content":"","tool_calls":[{"id":"call_",',
    '"type":"function","function":{"name":"","arguments":""}}]}],"tool_definitions":[],"tool_execution":{"name":"","call_id":"",',
    '"arguments":"","result":"","error":""},"request_model":"","response_model":"","provider":"","usage":{"input_tokens":,',
    '"output_tokens":,"total_tokens":},"agent_name":"","agent_version":"","conversation_id":""},"received_at_ms":,',
    '"project":"","kind":"log","event_name":"gen_ai.","time_unix_nano":"","sequence":,"message":{"role":"tool","content":"",',
    '"tool_call_id":"call_"},"is_output":false}',
  ].join(''),
);

/** A 4 KB window holds the dictionary and a span's reach back; zlib's state per call stays small. */
const ZLIB = { dictionary: DICTIONARY, windowBits: 12, memLevel: 5 };

const OPEN_BRACE = 0x7b;

/** JSON always starts with `{`; a zlib stream never does (its first byte says deflate, 8, and a window of at most 2^15). */
export function packRecord(record: object): Buffer {
  const json = JSON.stringify(record);
  if (json.length < DEFLATE_FROM_CHARS) return Buffer.from(json, 'utf8');
  return deflateSync(json, ZLIB);
}

export function unpackRecord<T>(bytes: Buffer): T {
  const json = bytes[0] === OPEN_BRACE ? bytes.toString('utf8') : inflateSync(bytes, ZLIB).toString('utf8');
  return JSON.parse(json) as T;
}
