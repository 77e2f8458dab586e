import type { OutgoingMessage } from '../../../../shared/adapters/bus/index.ts';
import { runInSlices } from '../../../../shared/runtime/flow/index.ts';
import type { Conversion } from '../pipeline.ts';
import type { ConvertOutcome } from './convert-export.ts';

/** Work between two yields to the event loop while a worker's records are parsed (as the pipeline's own slices). */
const YIELD_AFTER_MS = 10;

/**
 * A worker's records as bus messages. A record the worker checked whole carries, as `parsed`, its
 * text parsed once here: the schema has no transforms, so that is what the schema gave (the
 * in-process bus's consumers skip their own parse; convert-pool.process.test.ts holds it to that). Not for
 * a bus that sends only the text (Kafka): `withParsed` false.
 *
 * Decoding and parsing run in slices with yields to the event loop in between: the records of one
 * 19 MB export took about 250 ms to parse, and the process answered nothing meanwhile
 * (bench/results/collector.md, "One large OTLP/JSON export").
 */
export function conversionOf(outcome: Extract<ConvertOutcome, { kind: 'converted' }>, withParsed: boolean, sliceMs = YIELD_AFTER_MS): Promise<Conversion> {
  return runInSlices(messageSteps(outcome, withParsed), sliceMs);
}

/** One step per record: its text decoded, and parsed. */
function* messageSteps(outcome: Extract<ConvertOutcome, { kind: 'converted' }>, withParsed: boolean): Generator<void, Conversion> {
  const n = outcome.keys.length;
  const messages = new Array<OutgoingMessage>(n);
  const text = Buffer.from(outcome.text.buffer, outcome.text.byteOffset, outcome.text.byteLength);
  for (let i = 0; i < n; i++) {
    yield;
    const value = text.toString('utf8', i === 0 ? 0 : outcome.ends[i - 1], outcome.ends[i]);
    messages[i] = withParsed && outcome.whole[i] ? { key: outcome.keys[i], value, parsed: JSON.parse(value) as unknown } : { key: outcome.keys[i], value };
  }
  return { messages, ...(outcome.entries ? { ends: outcome.entries } : {}), accepted: n, rejected: outcome.rejected, errorMessage: outcome.errorMessage };
}
