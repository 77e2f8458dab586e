import type { OutgoingMessage } from '../../../../shared/adapters/bus/index.ts';
import type { Conversion } from '../pipeline.ts';
import type { ConvertOutcome } from './convert-export.ts';

/**
 * A worker's records as bus messages. A record the worker checked whole carries, as `parsed`, its
 * text parsed once here: the schema has no transforms, so that is what the schema gave (the
 * in-process bus's consumers skip their own parse; convert-export.test.ts holds it to that).
 */
export function conversionOf(outcome: Extract<ConvertOutcome, { kind: 'converted' }>): Conversion {
  const n = outcome.keys.length;
  const messages = new Array<OutgoingMessage>(n);
  for (let i = 0; i < n; i++) {
    const value = outcome.values[i];
    messages[i] = outcome.whole[i] ? { key: outcome.keys[i], value, parsed: JSON.parse(value) as unknown } : { key: outcome.keys[i], value };
  }
  return { messages, accepted: n, rejected: outcome.rejected, errorMessage: outcome.errorMessage };
}
