import { errorMessage } from '../../runtime/errors/index.ts';
import type { BusMessage, OutgoingMessage } from './contract.ts';

export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}

// Header values are capped: an error message can quote an entire hostile payload.
const MAX_ERROR_HEADER_CHARS = 4_000;

/** The record as it goes to `<topic>.dlq`: original key, value and headers plus why and where from. */
export function deadLetterRecord(message: BusMessage, err: unknown): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      error: errorMessage(err).slice(0, MAX_ERROR_HEADER_CHARS),
      'error-name': err instanceof Error ? err.name : typeof err,
      'original-topic': message.topic,
      'original-partition': String(message.partition),
      'original-offset': message.offset,
    },
  };
}

/**
 * A record that can never be sent (larger than the broker, topic or client allows; or refused by the
 * broker for what it is: `errorName` RecordRefusedError), as it goes to `<topic>.dlq`: its value cut to `maxValueBytes` (the whole record could not land there either),
 * with the reason, its full size and `value-truncated`. It was never on `topic`, so it has no offset.
 */
export function oversizedDeadLetterRecord(topic: string, message: OutgoingMessage, reason: string, maxValueBytes: number, errorName = 'RecordTooLargeError'): OutgoingMessage {
  const value = Buffer.from(message.value);
  const truncated = value.length > maxValueBytes;
  return {
    key: message.key.slice(0, 1_000),
    value: truncated ? value.subarray(0, Math.max(0, maxValueBytes)).toString() : message.value,
    headers: {
      error: reason.slice(0, MAX_ERROR_HEADER_CHARS),
      'error-name': errorName,
      'original-topic': topic,
      'original-bytes': String(value.length),
      'value-truncated': String(truncated),
    },
  };
}

// Records dead-lettered by this process, per origin topic: the process's /metrics reads it
// (tracecheck_dead_letters_total). Process-wide like the metrics registry, so that every writer
// (the bus's consumers, the window stages, the oversized-record path) counts without wiring.
const written = new Map<string, number>();

/** Counts records that landed on `<topic>.dlq`; called once their send succeeded. */
export function countDeadLetters(originTopic: string, records: number): void {
  written.set(originTopic, (written.get(originTopic) ?? 0) + records);
}

/** Records this process has dead-lettered since it started, per origin topic. */
export function deadLettersWritten(): ReadonlyMap<string, number> {
  return written;
}

/** How a dead-letter writer puts records on a topic: the bus's own append, or a producer's send. */
export type SendRecords = (topic: string, records: readonly OutgoingMessage[]) => Promise<void>;

/**
 * The one dead-letter writer: each record goes to its own topic's `<topic>.dlq` in the format of
 * `deadLetterRecord`, one send per origin topic. Rejects when a send does: the caller keeps the
 * records uncommitted and tries again.
 */
export async function writeDeadLetters(send: SendRecords, messages: readonly BusMessage[], err: unknown): Promise<void> {
  const byTopic = new Map<string, OutgoingMessage[]>();
  for (const m of messages) {
    const records = byTopic.get(m.topic);
    if (records) records.push(deadLetterRecord(m, err));
    else byTopic.set(m.topic, [deadLetterRecord(m, err)]);
  }
  for (const [topic, records] of byTopic) {
    await send(deadLetterTopic(topic), records);
    countDeadLetters(topic, records.length);
  }
}
