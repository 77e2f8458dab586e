import { errorMessage } from '../errors/index.ts';
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
