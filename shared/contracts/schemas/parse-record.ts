import type { z } from 'zod';
import { PermanentError, errorMessage } from '../../runtime/errors/index.ts';

/**
 * A bus record's value through its schema. Not JSON, or not the schema: a PermanentError (the
 * consumer sends the record to the dead-letter topic), never a cast. `object`: the value before
 * its producer wrote it as JSON (BusMessage.parsed, on the in-process bus), checked instead of
 * parsing the text again (the objects the schema describes come out as copies of its own).
 */
export function parseRecord<T>(schema: z.ZodType<T>, value: string, what: string, object?: unknown): T {
  let json: unknown = object;
  if (json === undefined) {
    try {
      json = JSON.parse(value);
    } catch (err) {
      throw new PermanentError(`record is not JSON: ${errorMessage(err)}`, { cause: err });
    }
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new PermanentError(`record is not ${what}: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
