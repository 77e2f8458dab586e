/**
 * Errors say whether trying again can help. Retriable: I/O, timeouts, a broker or database that is
 * down. Permanent: bad input, unknown schema versions, programming errors; retrying cannot fix them.
 */
export class RetriableError extends Error {
  readonly retriable = true as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetriableError';
  }
}

export class PermanentError extends Error {
  readonly retriable = false as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

export function isRetriable(err: unknown): boolean {
  if (err instanceof PermanentError) return false;
  if (err instanceof RetriableError) return true;
  // A TypeError or RangeError is a bug in our code; retrying it only hides it.
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return false;
  return typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === true;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
