import { BlockList, isIP } from 'node:net';
import { canonicalAddress } from './address-list.ts';

// Where an outbound request made on a tenant's behalf must not go without the operator's say-so:
// this host, the private network, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254),
// carrier-grade NAT, and ranges that are not unicast on the internet at all.

const RANGES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // IPv4-compatible addresses (deprecated) and NAT64 for local use can both reach IPv4 hosts inside.
  ['::', 96, 'IPv4-compatible'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const lists = RANGES.map(([addr, bits, kind]) => {
  const list = new BlockList();
  list.addSubnet(addr, bits, isIP(addr) === 4 ? 'ipv4' : 'ipv6');
  return { list, kind };
});

/** What kind of non-public address this is (loopback, private, …), or null for a public one. IPv4-mapped IPv6 counts as its IPv4. */
export function specialAddressKind(address: string): string | null {
  const canonical = canonicalAddress(address);
  if (canonical === null) return 'not an IP address';
  const type = isIP(canonical) === 4 ? 'ipv4' : 'ipv6';
  for (const { list, kind } of lists) if (list.check(canonical, type)) return kind;
  return null;
}
