import { z } from 'zod';

/** The range of a JavaScript Date (±100,000,000 days from 1970): times outside it mean nothing and break SQL bounds. */
export const MAX_TIME_MS = 8.64e15;

/** A time filter: epoch milliseconds or an ISO 8601 date/time. */
export const TimeParamSchema = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const ms = /^\d{1,16}$/.test(s) ? Number(s) : Date.parse(s);
    if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS) {
      ctx.addIssue({ code: 'custom', message: `"${s.slice(0, 64)}" is neither epoch milliseconds nor an ISO 8601 time` });
      return z.NEVER;
    }
    return ms;
  });
