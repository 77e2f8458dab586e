import type { OutgoingMessage } from '../../../../shared/adapters/bus/index.ts';
import type { Conversion } from '../pipeline.ts';
import type { ConvertOutcome } from './convert-export.ts';

/**
 * A worker's records as bus messages. A record the worker checked whole carries, as `parsed`, its
 * text parsed once here: the schema has no transforms, so that is what the schema gave (the
 * in-process bus's consumers skip their own parse; convert-pool.test.ts holds it to that). Not for
 * a bus that sends only the text (Kafka): `withParsed` false.
 */
export function conversionOf(outcome: Extract<ConvertOutcome, { kind: 'converted' }>, withParsed: boolean): Conversion {
  const n = outcome.keys.length;
  const messages = new Array<OutgoingMessage>(n);
  for (let i = 0; i < n; i++) {
    const value = outcome.values[i];
    messages[i] = withParsed && outcome.whole[i] ? { key: outcome.keys[i], value, parsed: JSON.parse(value) as unknown } : { key: outcome.keys[i], value };
  }
  return { messages, ...(outcome.ends ? { ends: outcome.ends } : {}), accepted: n, rejected: outcome.rejected, errorMessage: outcome.errorMessage };
}
