import { errorMessage } from '../../runtime/errors/index.ts';
import type { OutgoingMessage } from './contract.ts';

/**
 * Bytes a record costs in a produce request beyond its key, value and headers (Kafka's v2 record:
 * length, attributes, timestamp and offset deltas, varint lengths; generous, since the limit counts
 * the encoded batch and our estimate counts UTF-16 lengths as bytes only after Buffer.byteLength).
 */
const RECORD_OVERHEAD_BYTES = 64;
/** The record batch's and the request's own header, kept free in every request. */
const REQUEST_OVERHEAD_BYTES = 1_024;

/** A record's size in a produce request, estimated from above. */
export function recordBytes(m: OutgoingMessage): number {
  let n = RECORD_OVERHEAD_BYTES + Buffer.byteLength(m.key) + Buffer.byteLength(m.value);
  if (m.headers) for (const [k, v] of Object.entries(m.headers)) n += 8 + Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** The key, value and headers of the largest record a request of `budgetBytes` can carry (see recordBytes). */
export function largestRecordBytes(budgetBytes: number): number {
  return Math.max(0, budgetBytes - RECORD_OVERHEAD_BYTES);
}

/** What a request may carry given the smallest limit (broker, topic, client): the limit less its header. */
export function requestBudget(limitBytes: number): number {
  return Math.max(1, limitBytes - REQUEST_OVERHEAD_BYTES);
}

/**
 * Splits records, in order, into batches each within `budgetBytes`. A record that alone exceeds the
 * budget is returned apart in `oversized` (it can never be sent), with its index kept in order.
 */
export function planBatches<M extends OutgoingMessage>(messages: readonly M[], budgetBytes: number): { batches: M[][]; oversized: M[] } {
  const batches: M[][] = [];
  const oversized: M[] = [];
  let current: M[] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = recordBytes(m);
    if (bytes > budgetBytes) {
      oversized.push(m);
      continue;
    }
    if (current.length > 0 && size + bytes > budgetBytes) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return { batches, oversized };
}

export interface SizedSendDeps {
  /** One produce request; rejects as the broker does. */
  send: (messages: readonly OutgoingMessage[]) => Promise<void>;
  /** True for the broker's "too large" refusal (MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE). */
  isTooLarge: (err: unknown) => boolean;
  /** A record that cannot be sent, however alone: dead-letter it (once) with the reason. */
  oversized: (message: OutgoingMessage, reason: string) => Promise<void>;
  /** True for the broker's refusal of a record for what it is (kafka-errors.ts: isRecordRefused). Default: none. */
  isRecordRefused?: (err: unknown) => boolean;
  /** A record the broker refused alone for what it is: dead-letter it (once) with the broker's reason. */
  refused?: (message: OutgoingMessage, reason: string) => Promise<void>;
  /** The request budget (see requestBudget) and the limit it came from, for the reason. */
  budgetBytes: number;
  limitBytes: number;
  /** What a record is, for the reason ("unit": the assembler's output). Default "record". */
  kind?: string;
}

/**
 * Sends records in batches sized by bytes, in order. A batch the broker still refuses as too large
 * (its limit changed, or our estimate was short), or for a record it refuses for what it is, is split
 * in halves, each sent again; a single record refused as too large, or too large by the estimate,
 * goes to `oversized`, one refused for what it is to `refused`. The number of produce
 * requests is bounded (at most 2n − 1 per planned batch of n records): nothing is retried for ever.
 * Any other failure rejects at once; the caller's retry policy decides (at least once: batches
 * already sent are not taken back).
 */
export async function sendSized(messages: readonly OutgoingMessage[], deps: SizedSendDeps): Promise<void> {
  const { batches, oversized } = planBatches(messages, deps.budgetBytes);
  const reasonFor = (m: OutgoingMessage): string =>
    `${deps.kind ?? 'record'} ${JSON.stringify(m.key.slice(0, 200))} is oversized: ${recordBytes(m)} bytes encoded, over the ${deps.limitBytes}-byte limit of the broker, topic or client; it can never be sent`;
  for (const m of oversized) await deps.oversized(m, reasonFor(m));
  const sendOrSplit = async (batch: readonly OutgoingMessage[]): Promise<void> => {
    try {
      await deps.send(batch);
    } catch (err) {
      const tooLarge = deps.isTooLarge(err);
      const refused = !tooLarge && deps.refused !== undefined && (deps.isRecordRefused?.(err) ?? false);
      if (!tooLarge && !refused) throw err;
      if (batch.length === 1) {
        if (tooLarge) await deps.oversized(batch[0], `${reasonFor(batch[0])} (the broker refused it alone)`);
        else await deps.refused!(batch[0], `${deps.kind ?? 'record'} ${JSON.stringify(batch[0].key.slice(0, 200))} was refused by the broker: ${errorMessage(err)}; sent again it would be refused again`);
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await sendOrSplit(batch.slice(0, half));
      await sendOrSplit(batch.slice(half));
    }
  };
  for (const batch of batches) await sendOrSplit(batch);
}
