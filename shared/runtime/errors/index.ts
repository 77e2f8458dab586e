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

/**
 * The process cannot go on: neither a retry nor a dead letter helps (a topic it is not allowed to
 * write to, or that does not exist and cannot be made). The service stops with this one line
 * (shared/runtime/lifecycle: reportFatal) rather than retrying or dead-lettering every record.
 */
export class FatalError extends PermanentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FatalError';
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

/**
 * A server could not listen because its address is taken. Permanent: retrying the same port does
 * not help; another port must be configured (the composition root names the setting).
 */
export class PortInUseError extends PermanentError {
  readonly host: string;
  readonly port: number;
  constructor(host: string, port: number, options?: { cause?: unknown }) {
    super(`${host}:${port} is already in use`, options);
    this.name = 'PortInUseError';
    this.host = host;
    this.port = port;
  }
}

/** A failure to listen on `host:port` as a PortInUseError when the address is taken (EADDRINUSE), else unchanged. */
export function listenError(err: Error, host: string, port: number): Error {
  // gRPC reports the bind failure in its message only ("… listen EADDRINUSE: address already in use …").
  return (err as { code?: unknown }).code === 'EADDRINUSE' || /\bEADDRINUSE\b/.test(err.message) ? new PortInUseError(host, port, { cause: err }) : err;
}
