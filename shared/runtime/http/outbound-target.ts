import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { canonicalAddress, type AddressMatcher } from './address-list.ts';
import { specialAddressKind } from './special-addresses.ts';

// A URL a tenant gave us (a webhook) is called only where the operator allows: its host is
// resolved, and when any address it resolves to is loopback, private, link-local, CGNAT or
// otherwise not public, it is refused unless the host or that address is on the allow list. The
// caller then connects to the address checked here, so a second lookup (DNS rebinding) cannot
// swap it.

export type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

export type TargetCheck =
  | { ok: true; host: string; address: string; family: 4 | 6 }
  | { ok: false; reason: string; unresolved?: boolean };

export interface OutboundPolicy {
  /** Hosts and ranges the operator allows although they are not public (`TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS`). */
  allow: AddressMatcher;
  lookup?: Lookup;
}

const HOW_TO_ALLOW = 'list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it';

/** Resolves `url`'s host and decides whether a request may go there; never throws. */
export async function checkOutboundTarget(url: string, policy: OutboundPolicy): Promise<TargetCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, reason: 'only http(s) URLs are called' };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const hostAllowed = policy.allow.hasHost(host);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [canonicalAddress(host)!];
  } else {
    try {
      addresses = (await (policy.lookup ?? systemLookup)(host)).map((a) => canonicalAddress(a.address) ?? a.address);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return { ok: false, unresolved: true, reason: `${host} does not resolve${typeof code === 'string' ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { ok: false, unresolved: true, reason: `${host} does not resolve` };
  }
  // Every address must pass: a name that answers one public and one private address could be
  // connected to either.
  for (const address of addresses) {
    const kind = specialAddressKind(address);
    if (kind !== null && !hostAllowed && !policy.allow.hasAddress(address)) {
      return { ok: false, reason: `${host === address ? host : `${host} resolves to ${address}`}, a ${kind} address; ${HOW_TO_ALLOW}` };
    }
  }
  const address = addresses[0];
  return { ok: true, host, address, family: isIP(address) === 6 ? 6 : 4 };
}
