import { DEFAULT_ADDRESS_THROTTLE, DEFAULT_PREFIX_THROTTLE, KEY_PREFIX_CHARS, bearerToken, createThrottle, type ThrottleOptions } from '../../../shared/kit/access/index.ts';
import { forwardedClient, type AddressMatcher } from '../../../shared/runtime/http/index.ts';
import type { Authorize } from './ingest.ts';

export interface AuthThrottleOptions {
  byAddress?: ThrottleOptions;
  byPrefix?: ThrottleOptions;
  now?: () => number;
}

/**
 * Failed ingest authentication is throttled as the API's is: the key is looked up first, so a valid
 * one is never refused for others' failures (an address can be a NAT or the TLS proxy in front of
 * us; a prefix is shared by guesses); a failure past those allowed per client address or per key
 * prefix is answered 429 + Retry-After instead of 401, so an exporter left with a revoked key backs
 * off. Only 401s count: a 503 (keys unreadable) is ours, a 403 is a valid key of the wrong kind.
 */
export function throttleFailedAuth(authorize: Authorize, options: AuthThrottleOptions = {}): Authorize {
  const now = options.now ?? Date.now;
  const byAddress = createThrottle({ now, ...(options.byAddress ?? DEFAULT_ADDRESS_THROTTLE) });
  const byPrefix = createThrottle({ now, ...(options.byPrefix ?? DEFAULT_PREFIX_THROTTLE) });
  return async (header, peer) => {
    const auth = await authorize(header, peer);
    if (auth.ok || auth.status !== 401) return auth;
    const address = `addr:${peer ?? 'unknown'}`;
    const prefix = `key:${(header === undefined ? '' : (bearerToken(header) ?? header)).slice(0, KEY_PREFIX_CHARS)}`;
    const wait = Math.max(byAddress.retryAfterMs(address), byPrefix.retryAfterMs(prefix));
    if (wait > 0) {
      const retryAfterSeconds = Math.ceil(wait / 1000);
      return { ok: false, status: 429, message: `too many failed authentications: retry in ${retryAfterSeconds} s`, retryAfterSeconds };
    }
    byAddress.failed(address);
    byPrefix.failed(prefix);
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

/**
 * The client an export came from: the peer, or behind a trusted proxy (a TLS terminator, a load
 * balancer) the nearest X-Forwarded-For hop not itself trusted, as the API reads it.
 */
export function clientOf(peer: string | undefined, forwarded: string | string[] | undefined, trusted: AddressMatcher | undefined): string | undefined {
  if (peer === undefined || !trusted) return peer;
  const header = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  return forwardedClient(peer, header, trusted) ?? peer;
}

/** gRPC metadata values of `x-forwarded-for`, as one header value (binary values are ignored). */
export function forwardedFor(values: readonly (string | Buffer)[]): string | undefined {
  const text = values.filter((v): v is string => typeof v === 'string');
  return text.length > 0 ? text.join(',') : undefined;
}
