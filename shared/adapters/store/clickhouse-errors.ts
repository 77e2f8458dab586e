import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';

// ClickHouse answers most failures with HTTP 500 and an exception code, so the status says little:
// the code decides. 18.16 formats exceptions as "Code: 62, e.displayText() = DB::Exception: …",
// which the client's parser does not always recognise, so the code is also read from the text.
const RETRIABLE_CODES = new Set([
  3, // UNEXPECTED_END_OF_FILE
  159, // TIMEOUT_EXCEEDED
  160, // TOO_SLOW
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  279, // ALL_CONNECTION_TRIES_FAILED
  285, // TOO_FEW_LIVE_REPLICAS
  286, // UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE (18.16 takes one quorum insert per table at a time)
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED
  425, // SYSTEM_ERROR
  439, // CANNOT_SCHEDULE_TASK
  999, // KEEPER_EXCEPTION
  1000, // POCO_EXCEPTION
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);

/** The server's exception code, when the error came from the server. */
export function clickHouseErrorCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string') {
    const m = /^\s*Code: (\d+)[.,]/.exec(message);
    if (m?.[1]) return Number(m[1]);
  }
  return null;
}

/**
 * Marks a failure retriable (connection refused or reset, timeouts, overload, a proxy's 5xx without
 * a ClickHouse code) or permanent (syntax, types, unknown columns or settings: any other server
 * exception). The original error is kept as `cause`.
 */
export function classifyClickHouseError(err: unknown, action: string): RetriableError | PermanentError {
  if (err instanceof RetriableError || err instanceof PermanentError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const text = `clickhouse ${action} failed: ${message.length > 2000 ? message.slice(0, 2000) + '…' : message}`;
  const chCode = clickHouseErrorCode(err);
  if (chCode !== null) {
    return RETRIABLE_CODES.has(chCode) ? new RetriableError(text, { cause: err }) : new PermanentError(text, { cause: err });
  }
  const sysCode = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (typeof sysCode === 'string' && NETWORK_CODES.has(sysCode)) return new RetriableError(text, { cause: err });
  if (/timeout|socket hang up|ECONNREFUSED|ECONNRESET|aborted/i.test(message)) return new RetriableError(text, { cause: err });
  // Our own bugs (TypeError and friends) are not worth retrying.
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return new PermanentError(text, { cause: err });
  // No server code and no known cause: transport trouble (e.g. a proxy's 502 page). Retry.
  return new RetriableError(text, { cause: err });
}
