import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { canonicalAddress, forwardedClient, type AddressMatcher } from '../../../shared/runtime/http/index.ts';

// Who is on the other end, as far as the API may believe it: the socket's peer, unless the peer
// is a proxy the operator trusts (TRACECHECK_TRUSTED_PROXIES), whose X-Forwarded-For and
// X-Forwarded-Proto then say who the client is and whether it came over TLS. Anyone else's
// forwarded headers are ignored: a client could write them itself.

function peerAddress(c: Context): string | null {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const peer = incoming?.socket?.remoteAddress;
  return peer ? (canonicalAddress(peer) ?? peer) : null;
}

/** The client's address (for throttling); `unknown` when the request came without a socket (tests). */
export function clientAddress(c: Context, trusted: AddressMatcher): string {
  return forwardedClient(peerAddress(c), c.req.header('x-forwarded-for'), trusted) ?? 'unknown';
}

/** The request reached us over TLS, directly or through a trusted proxy that says so. */
export function cameOverHttps(c: Context, trusted: AddressMatcher): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  const peer = peerAddress(c);
  if (peer === null || !trusted.hasAddress(peer)) return false;
  return (c.req.header('x-forwarded-proto') ?? '').split(',')[0].trim().toLowerCase() === 'https';
}
