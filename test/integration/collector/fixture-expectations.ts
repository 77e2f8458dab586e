import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeLogsRequestJson, decodeTraceRequestJson, logsRequestToMessages, traceRequestToMessages } from '../../../services/collector/src/index.ts';
import type { OutgoingMessage } from '../../../shared/adapters/bus/index.ts';
import { SpanEnvelopeSchema } from '../../../shared/contracts/schemas/index.ts';

// Golden fixtures (raw exports of real instrumentation libraries, test/fixtures/otlp/<family>/)
// and the envelopes the collector must make of them, in `<scenario>[.logs].expected.json` beside.

export const FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'otlp');

export interface Fixture {
  family: string;
  scenario: string;
  signal: 'traces' | 'logs';
  jsonPath: string;
  pbPath: string;
  expectedPath: string;
}

function familyDirs(): string[] {
  const top = readdirSync(FIXTURES_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  // Captures of Python libraries live one level down: test/fixtures/otlp/python/<family>/.
  const python = readdirSync(join(FIXTURES_DIR, 'python'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `python/${d.name}`);
  return [...top.filter((d) => d !== 'python'), ...python].sort();
}

export function listFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const family of familyDirs()) {
    const dir = join(FIXTURES_DIR, family);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.otlp.json')).sort()) {
      const base = file.slice(0, -'.otlp.json'.length);
      const signal = base.endsWith('.logs') ? 'logs' : 'traces';
      out.push({
        family,
        scenario: base,
        signal,
        jsonPath: join(dir, file),
        pbPath: join(dir, `${base}.otlp.pb`),
        expectedPath: join(dir, `${base}.expected.json`),
      });
    }
  }
  return out;
}

/** The fixtures recorded from JavaScript libraries (one conversation, `weather-tool`). */
export function listJsFixtures(): Fixture[] {
  return listFixtures().filter((f) => !f.family.startsWith('python/'));
}

/** What is compared: the parts of an envelope that come from the export, not from the time of receipt. */
export function project(message: OutgoingMessage): Record<string, unknown> {
  const e = SpanEnvelopeSchema.parse(JSON.parse(message.value));
  if (e.kind === 'span') {
    return { key: message.key, kind: e.kind, span_id: e.span_id, parent_span_id: e.parent_span_id ?? null, name: e.name, status: e.status, genai: e.genai };
  }
  return { key: message.key, kind: e.kind, span_id: e.span_id ?? null, event_name: e.event_name, is_output: e.is_output, message: e.message ?? null, sequence: e.sequence };
}

/** The envelopes the pure path makes of a fixture's JSON export (used to write the expectations). */
export function normalizeFixture(f: Fixture): Record<string, unknown>[] {
  const body = readFileSync(f.jsonPath);
  const options = { maxAttributeBytes: 1024 * 1024, receivedAtMs: 0 };
  const conversion = f.signal === 'logs' ? logsRequestToMessages(decodeLogsRequestJson(body), options) : traceRequestToMessages(decodeTraceRequestJson(body), options);
  if (conversion.rejected > 0) throw new Error(`${f.jsonPath}: ${conversion.errorMessage}`);
  return conversion.messages.map(project);
}
