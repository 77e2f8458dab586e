import { DEFAULT_ADDRESS_THROTTLE, DEFAULT_PREFIX_THROTTLE, KEY_PREFIX_CHARS, bearerToken, createThrottle, type ThrottleOptions } from '../../../shared/kit/access/index.ts';
import type { Authorize } from './ingest.ts';

export interface AuthThrottleOptions {
  byAddress?: ThrottleOptions;
  byPrefix?: ThrottleOptions;
  now?: () => number;
}

/**
 * Failed ingest authentication is throttled as the API's is: past the failures allowed per client
 * address and per key prefix, an export is answered 429 + Retry-After before its key is looked at,
 * so guessing keys (or an exporter left with a revoked one) costs the collector almost nothing.
 * Only 401s count: a 503 (keys unreadable) is ours, a 403 is a valid key of the wrong kind.
 */
export function throttleFailedAuth(authorize: Authorize, options: AuthThrottleOptions = {}): Authorize {
  const now = options.now ?? Date.now;
  const byAddress = createThrottle({ now, ...(options.byAddress ?? DEFAULT_ADDRESS_THROTTLE) });
  const byPrefix = createThrottle({ now, ...(options.byPrefix ?? DEFAULT_PREFIX_THROTTLE) });
  return async (header, peer) => {
    const address = `addr:${peer ?? 'unknown'}`;
    const prefix = `key:${(header === undefined ? '' : (bearerToken(header) ?? header)).slice(0, KEY_PREFIX_CHARS)}`;
    const wait = Math.max(byAddress.retryAfterMs(address), byPrefix.retryAfterMs(prefix));
    if (wait > 0) {
      const retryAfterSeconds = Math.ceil(wait / 1000);
      return { ok: false, status: 429, message: `too many failed authentications: retry in ${retryAfterSeconds} s`, retryAfterSeconds };
    }
    const auth = await authorize(header, peer);
    if (!auth.ok && auth.status === 401) {
      byAddress.failed(address);
      byPrefix.failed(prefix);
    }
    return auth;
  };
}

/** The client's address without its port, from a socket address or a gRPC peer (`ipv4:1.2.3.4:5`, `ipv6:[::1]:5`). */
export function peerAddress(peer: string | undefined): string | undefined {
  if (!peer) return undefined;
  const bare = peer.replace(/^(ipv4|ipv6|unix):/, '');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(bare);
  if (bracketed) return bracketed[1];
  return /^[^:]+:\d+$/.test(bare) ? bare.slice(0, bare.lastIndexOf(':')) : bare;
}
