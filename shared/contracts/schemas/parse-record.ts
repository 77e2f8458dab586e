import type { z } from 'zod';
import { PermanentError, errorMessage } from '../../runtime/errors/index.ts';

/**
 * A bus record's value through its schema. Not JSON, or not the schema: a PermanentError (the
 * consumer sends the record to the dead-letter topic), never a cast.
 */
export function parseRecord<T>(schema: z.ZodType<T>, value: string, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (err) {
    throw new PermanentError(`record is not JSON: ${errorMessage(err)}`, { cause: err });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new PermanentError(`record is not ${what}: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
