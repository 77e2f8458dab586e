import { errorMessage, FatalError, PermanentError, RetriableError } from '../../runtime/errors/index.ts';

// kafkajs is CommonJS and its error classes are not named ESM exports, so errors are told apart
// by name and by the `retriable` flag kafkajs sets on every error of its own.
const TRANSIENT_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSStaleTopicMetadataAssignment',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
]);
const TRANSIENT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  retriable?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isTransient(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as ErrorLike;
  const name = typeof e.name === 'string' ? e.name : '';
  // Retries exhausted inside kafkajs says nothing by itself; what failed decides. Its retriers nest
  // (the producer's inside the send's): the outer one wraps the inner's exhaustion as
  // KafkaJSNonRetriableError with the connection error as cause — a broker outage, not a verdict.
  if (name === 'KafkaJSNumberOfRetriesExceeded') return isTransient(e.cause, depth + 1);
  if (name === 'KafkaJSNonRetriableError' && e.cause !== undefined) return isTransient(e.cause, depth + 1);
  if (name === 'KafkaJSAggregateError' && Array.isArray(e.errors)) return e.errors.length > 0 && e.errors.every((x) => isTransient(x, depth + 1));
  if (TRANSIENT_NAMES.has(name)) return true;
  if (typeof e.code === 'string' && TRANSIENT_SOCKET_CODES.has(e.code)) return true;
  // KafkaJSProtocolError carries the broker's verdict (LEADER_NOT_AVAILABLE, NOT_ENOUGH_REPLICAS…).
  if (name.startsWith('KafkaJS')) return e.retriable === true;
  return false;
}

/**
 * Wraps a kafkajs failure as ours: RetriableError for a broker that is unreachable, slow or
 * electing a leader; PermanentError for everything else (bad config, a record too large,
 * authorization). The kafkajs error stays as `cause`.
 */
export function toBusError(err: unknown, action: string): RetriableError | PermanentError {
  if (err instanceof RetriableError || err instanceof PermanentError) return err;
  const message = `${action}: ${errorMessage(err)}`;
  return isTransient(err) ? new RetriableError(message, { cause: err }) : new PermanentError(message, { cause: err });
}

const TOO_LARGE_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/** The broker's refusal of a produce request as too large, however kafkajs wrapped it. */
export function isTooLarge(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as ErrorLike & { type?: unknown };
  if (typeof e.type === 'string' && TOO_LARGE_TYPES.has(e.type)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isTooLarge(x, depth + 1))) return true;
  return isTooLarge(e.cause, depth + 1) || /larger than the max message size/i.test(errorMessage(err));
}

/**
 * The broker's refusal of one record of a produce request for what the record is, not for where it
 * goes: it failed the topic's validation (a compacted topic's record without a key: INVALID_RECORD),
 * its checksum (CORRUPT_MESSAGE) or its timestamp (INVALID_TIMESTAMP). Sent again it is refused
 * again; the other records of its request were refused with it.
 */
const REFUSED_RECORD_TYPES = new Set(['INVALID_RECORD', 'CORRUPT_MESSAGE', 'INVALID_TIMESTAMP']);

export function isRecordRefused(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as ErrorLike & { type?: unknown };
  if (typeof e.type === 'string' && REFUSED_RECORD_TYPES.has(e.type)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isRecordRefused(x, depth + 1))) return true;
  return isRecordRefused(e.cause, depth + 1);
}

/**
 * A produce failure as ours, once the records the broker refused for themselves were dead-lettered
 * (sized-send.ts): RetriableError for a broker that is unreachable, slow or electing a leader (the
 * caller retries with its backoff, as through an outage); otherwise a FatalError: what is left
 * refuses every record to the topic (authorization, a topic that does not exist and cannot be made,
 * a bad setting), so the service stops with this message instead of retrying or dead-lettering all.
 */
export function toSendError(err: unknown, action: string): RetriableError | PermanentError {
  if (err instanceof RetriableError || err instanceof PermanentError) return err;
  const message = `${action}: ${errorMessage(err)}`;
  return isTransient(err) ? new RetriableError(message, { cause: err }) : new FatalError(message, { cause: err });
}
