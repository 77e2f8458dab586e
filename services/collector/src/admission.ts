import { bearerToken } from '../../../shared/kit/access/index.ts';
import { basicCredentials } from './langfuse-door.ts';

/** One admitted export: what it holds of the budgets until released. */
export interface AdmissionTicket {
  /**
   * Raises what the export holds to `totalBytes` (a chunked body has no declared size: its bytes
   * are charged as they arrive). False when that would pass a limit: the export is to be refused.
   */
  ensure(totalBytes: number): boolean;
  release(): void;
}

/**
 * Bounds the exports in flight across both receivers, in all and per sender; beyond it the
 * client is told to come back later.
 */
export interface Admission {
  /**
   * A ticket, or null when admitting `bytes` more for `key` (the sender's credentials: one
   * ingest key's exports share one key) would exceed a limit.
   */
  tryEnter(key: string, bytes: number): AdmissionTicket | null;
}

export interface AdmissionLimits {
  maxRequests: number;
  maxBytes: number;
  /** Exports in flight of one key: slow uploads with one key cannot hold every slot. */
  maxRequestsPerKey: number;
  maxBytesPerKey: number;
}

interface Held {
  requests: number;
  bytes: number;
}

export function createAdmission(limits: AdmissionLimits): Admission {
  const total: Held = { requests: 0, bytes: 0 };
  const perKey = new Map<string, Held>();

  function fits(held: Held, maxBytes: number, more: number): boolean {
    // One request is always admitted when nothing else runs, whatever its size.
    return !(held.requests > 1 && held.bytes + more > maxBytes);
  }

  return {
    tryEnter(key, size) {
      const mine = perKey.get(key) ?? { requests: 0, bytes: 0 };
      if (total.requests >= limits.maxRequests || mine.requests >= limits.maxRequestsPerKey) return null;
      if ((total.requests > 0 && total.bytes + size > limits.maxBytes) || (mine.requests > 0 && mine.bytes + size > limits.maxBytesPerKey)) return null;
      total.requests++;
      mine.requests++;
      perKey.set(key, mine);
      let held = 0;
      let released = false;
      const add = (n: number): void => {
        held += n;
        total.bytes += n;
        mine.bytes += n;
      };
      add(size);
      return {
        ensure(totalBytes) {
          if (released) return false;
          const more = totalBytes - held;
          if (more <= 0) return true;
          if (!fits(total, limits.maxBytes, more) || !fits(mine, limits.maxBytesPerKey, more)) return false;
          add(more);
          return true;
        },
        release() {
          if (released) return;
          released = true;
          total.requests--;
          mine.requests--;
          add(-held);
          if (mine.requests === 0) perKey.delete(key);
        },
      };
    },
  };
}

/**
 * The admission key of an export: its bearer token, parsed as authorization parses it, so that
 * spelling one key differently (`bearer`, spaces) does not buy another share; a Langfuse SDK's
 * (Basic) its public key. Neither: ''.
 */
export function admissionKey(authorization: string | undefined): string {
  const token = bearerToken(authorization);
  if (token) return token;
  const basic = basicCredentials(authorization);
  return basic ? `langfuse:${basic.publicKey}` : '';
}
