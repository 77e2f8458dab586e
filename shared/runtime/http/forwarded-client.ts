import { canonicalAddress, type AddressMatcher } from './address-list.ts';

/**
 * Who sent a request, as far as a server may believe it: the socket's peer, unless that peer is a
 * proxy the operator trusts (TRACECHECK_TRUSTED_PROXIES), in which case the nearest X-Forwarded-For
 * hop that is not itself trusted. Entries further left were written by the client and prove nothing;
 * an entry that is not an address stops the walk at the last hop believed.
 */
export function forwardedClient(peer: string | null, forwardedFor: string | undefined, trusted: AddressMatcher): string | null {
  if (peer === null) return null;
  const canonicalPeer = canonicalAddress(peer) ?? peer;
  if (!trusted.hasAddress(canonicalPeer)) return canonicalPeer;
  const hops = (forwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalAddress(hops[i]);
    if (hop === null) break;
    if (!trusted.hasAddress(hop)) return hop;
  }
  return canonicalPeer;
}
