import { z } from 'zod';
import { MAX_TIME_MS } from './time-param.ts';

// Page cursors are opaque to clients: base64url of a small JSON keyset position. A tampered cursor
// is a 400, never a query with unchecked values (the store validates and binds/quotes them anyway).

export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

export function cursorParam<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .max(2000)
    .transform((s, ctx): z.output<T> => {
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not a cursor this API returned' });
        return z.NEVER;
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: 'not a cursor this API returned' });
        return z.NEVER;
      }
      return parsed.data;
    });
}

// Positions are times a Date can hold: `end_time_ms: 1e308` is finite, but no row has it and SQL cannot bind it.
const TimeMs = z.number().min(-MAX_TIME_MS).max(MAX_TIME_MS);
const Text = z.string().max(500);

export const ScoreCursorSchema = z.object({ created_at_ms: TimeMs, unit_id: Text, check: Text, check_version: Text }).strict();

/** The cursor of the page after `rows` (a full page), else null. */
export function nextScoreCursor(rows: readonly { created_at_ms: number; unit_id: string; check: string; check_version: string }[], limit: number): string | null {
  const last = rows.at(-1);
  return last && rows.length === limit ? encodeCursor({ created_at_ms: last.created_at_ms, unit_id: last.unit_id, check: last.check, check_version: last.check_version }) : null;
}
