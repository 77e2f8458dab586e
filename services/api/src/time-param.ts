import { z } from 'zod';

/** A time filter: epoch milliseconds or an ISO 8601 date/time. */
export const TimeParamSchema = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const ms = /^\d{1,16}$/.test(s) ? Number(s) : Date.parse(s);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: `"${s.slice(0, 64)}" is neither epoch milliseconds nor an ISO 8601 time` });
      return z.NEVER;
    }
    return ms;
  });
