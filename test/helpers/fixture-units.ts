import { readFileSync } from 'node:fs';
import { decodeLogsRequestJson, decodeLogsRequestProtobuf, decodeTraceRequestJson, decodeTraceRequestProtobuf, logsRequestToMessages, traceRequestToMessages } from '../../services/collector/src/index.ts';
import { assembleTrace } from '../../services/assembler/src/assemble-trace.ts';
import { SpanEnvelopeSchema, type LogRecordEnvelope, type SpanRecord, type Unit } from '../../shared/contracts/schemas/index.ts';
import { listFixtures } from '../integration/collector/fixture-expectations.ts';

export type FixtureEncoding = 'json' | 'protobuf';

/** The units (one per trace, by start time) that a golden capture's spans and logs assemble to. */
export function fixtureUnits(family: string, scenario: string, encoding: FixtureEncoding): Unit[] {
  const spans: SpanRecord[] = [];
  const logs: LogRecordEnvelope[] = [];
  const options = { maxAttributeBytes: 1024 * 1024, receivedAtMs: 0 };
  for (const f of listFixtures().filter((x) => x.family === family && x.scenario.replace(/\.logs$/, '') === scenario)) {
    const body = readFileSync(encoding === 'json' ? f.jsonPath : f.pbPath);
    const conversion = f.signal === 'logs'
      ? logsRequestToMessages(encoding === 'json' ? decodeLogsRequestJson(body) : decodeLogsRequestProtobuf(body), options)
      : traceRequestToMessages(encoding === 'json' ? decodeTraceRequestJson(body) : decodeTraceRequestProtobuf(body), options);
    for (const m of conversion.messages) {
      const e = SpanEnvelopeSchema.parse(JSON.parse(m.value));
      if (e.kind === 'span') spans.push(e);
      else logs.push(e);
    }
  }
  const traceIds = [...new Set(spans.map((s) => s.trace_id))];
  return traceIds
    .map((traceId) => assembleTrace({ traceId, spans: spans.filter((s) => s.trace_id === traceId), logs: logs.filter((l) => l.trace_id === traceId) }, 0))
    .sort((a, b) => a.start_time_ms - b.start_time_ms);
}
