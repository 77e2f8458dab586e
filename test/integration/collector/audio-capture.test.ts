import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeLogsRequestJson, decodeTraceRequestJson, logsRequestToMessages, traceRequestToMessages } from '../../../services/collector/src/index.ts';
import { assembleTrace } from '../../../services/assembler/src/assemble-trace.ts';
import { SpanEnvelopeSchema, type LogRecordEnvelope, type SpanRecord, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createCheckRegistry, createModelCheck, unitToCheckInput } from '../../../shared/engines/checks/index.ts';
import { ctxWith, scriptedJudge } from '../../../shared/engines/checks/test-support.ts';

// The golden capture of @opentelemetry/instrumentation-openai 0.21.0 on the Responses API (spans,
// and the messages as log records with structured AnyValues), with the user's first turn carrying an
// audio item as that library records it: the Responses `input_audio` item, its type renamed `audio`
// (build/src/responses.js: unknown content types are spread and typed 'audio').
const DIR = resolve(import.meta.dirname, '../../fixtures/otlp/otel-genai-openai-responses');
const WAV = Buffer.from('RIFF$\u0000\u0000\u0000WAVEfmt \u0010\u0000\u0000\u0000\u0001\u0000\u0001\u0000').toString('base64');

type AnyValue = Record<string, unknown>;
const str = (s: string): AnyValue => ({ stringValue: s });
const kv = (o: Record<string, AnyValue>): AnyValue => ({ kvlistValue: { values: Object.entries(o).map(([key, value]) => ({ key, value })) } });

function withAudio(logs: string): string {
  const body = JSON.parse(logs) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ attributes: Array<{ key: string; value: AnyValue }> }> }> }> };
  const record = body.resourceLogs[0].scopeLogs[0].logRecords[0];
  const input = record.attributes.find((a) => a.key === 'gen_ai.input.messages')!.value as { arrayValue: { values: AnyValue[] } };
  const userTurn = input.arrayValue.values.find((m) => JSON.stringify(m).includes('"role"},{') || JSON.stringify(m).includes('"stringValue":"user"'))! as { kvlistValue: { values: Array<{ key: string; value: { arrayValue: { values: AnyValue[] } } }> } };
  userTurn.kvlistValue.values.find((v) => v.key === 'parts')!.value.arrayValue.values.push(kv({ type: str('audio'), input_audio: kv({ data: str(WAV), format: str('wav') }) }));
  return JSON.stringify(body);
}

function units(traces: Buffer, logs: Buffer): Unit[] {
  const options = { maxAttributeBytes: 1024 * 1024, receivedAtMs: 0 };
  const spans: SpanRecord[] = [];
  const records: LogRecordEnvelope[] = [];
  for (const m of [...traceRequestToMessages(decodeTraceRequestJson(traces), options).messages, ...logsRequestToMessages(decodeLogsRequestJson(logs), options).messages]) {
    const e = SpanEnvelopeSchema.parse(JSON.parse(m.value));
    if (e.kind === 'span') spans.push(e);
    else records.push(e);
  }
  return [...new Set(spans.map((s) => s.trace_id))].map((traceId) => assembleTrace({ traceId, spans: spans.filter((s) => s.trace_id === traceId), logs: records.filter((l) => l.trace_id === traceId) }, 0));
}

describe('audio parts from a real-shaped capture reach {audio_messages} and the judge', () => {
  const traces = readFileSync(join(DIR, 'responses.otlp.json'));
  const logs = readFileSync(join(DIR, 'responses.logs.otlp.json'), 'utf8');

  it('the unit keeps the audio; empathy_score reads its size in the transcript, a user check over {audio_messages} sends the recording', async () => {
    const unit = units(traces, Buffer.from(withAudio(logs)))[0];
    const first = unit.message_history.find((m) => m.role === 'user')!;
    expect(first).toEqual({ role: 'user', content: 'Hello, I am Ada. Please remember my name.', audio: [{ format: 'wav', content: WAV }] });
    const input = unitToCheckInput(unit);
    expect(input.audio_messages).toEqual([first]);
    expect(input.audio_output).toBeNull();

    // empathy_score listens to the agent's final turn only; here only the user spoke audio.
    const judge = scriptedJudge('[[4]] ((warm))');
    const empathy = createCheckRegistry().get('empathy_score')!;
    expect(await empathy.run(input, ctxWith({ judge }))).toMatchObject({ status: 'ok', value: 4, passed: true });
    const prompt = judge.requests[0].user;
    expect(prompt).toContain('{"role":"user","content":"Hello, I am Ada. Please remember my name.","audio":[ {"format":"wav","audio_bytes":24} ] }');
    expect(prompt).toContain('audio_output>>>\n(not provided)');
    expect(prompt).not.toContain(WAV);
    expect(judge.requests[0].audio).toBeUndefined();

    const audioOnly = createModelCheck({ kind: 'model', name: 'tone', description: 'tone of voice', outputType: 'pass_fail', promptTemplate: 'Is the speaker calm? {audio_messages}' });
    const yes = scriptedJudge('[[True]] ((calm))');
    expect(await audioOnly.run(input, ctxWith({ judge: yes }))).toMatchObject({ status: 'ok', passed: true });
    expect(yes.requests[0].user).toContain('"audio_bytes":24');
    expect(yes.requests[0].user).not.toContain(WAV);
    expect(yes.requests[0].audio?.parts).toEqual([{ data: WAV, format: 'wav' }]);
    // The capture as released, without audio: the user check says why it does not run.
    const plain = unitToCheckInput(units(traces, Buffer.from(logs))[0]);
    expect(plain.audio_messages).toBeNull();
    expect(await audioOnly.run(plain, ctxWith({ judge }))).toEqual({ status: 'not_run', method: 'model', error: 'none of audio_messages is present on this unit' });
  });
});
