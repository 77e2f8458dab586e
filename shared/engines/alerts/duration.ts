import { PermanentError } from '../../runtime/errors/index.ts';

/** A duration as rules write it: a positive integer and one unit, `ms`, `s`, `m`, `h` or `d`. */
export const DURATION_PATTERN = /^[1-9][0-9]{0,8}(ms|s|m|h|d)$/;

/** The longest window or reminder interval a rule may ask for (90 days). */
const MAX_DURATION_MS = 90 * 24 * 3_600_000;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

class DurationError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

/** `"30s"` → 30000. Throws a DurationError that says what is wrong and what is expected. */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  if (!match) {
    throw new DurationError(`"${text}" is not a duration: write a positive whole number and a unit (ms, s, m, h, d), e.g. "30s", "15m", "1h", "7d"`);
  }
  const ms = Number.parseInt(text, 10) * UNIT_MS[match[1]];
  if (ms > MAX_DURATION_MS) throw new DurationError(`"${text}" is longer than the maximum of 90d`);
  return ms;
}

/** The message of `parseDuration`'s error, or null for a valid duration (for schema refinements). */
export function durationProblem(text: string): string | null {
  try {
    parseDuration(text);
    return null;
  } catch (err) {
    return err instanceof DurationError ? err.message : String(err);
  }
}

/** 900000 → `"15m"`: the largest unit that divides it exactly. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit];
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
