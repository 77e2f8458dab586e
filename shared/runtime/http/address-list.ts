import { BlockList, isIP } from 'node:net';

// Lists of hosts and address ranges an operator writes in one variable ("127.0.0.1,10.0.0.0/8,
// hooks.internal"): the alerter's private targets it may call, the proxies whose forwarded headers
// the API believes. Addresses are compared after IPv4-mapped IPv6 is unwrapped, so
// `::ffff:127.0.0.1` is 127.0.0.1 to every rule.

export interface AddressList {
  /** Host names, lower case. */
  hosts: string[];
  /** Ranges as `address/prefix`; a bare address is a range of one. */
  cidrs: string[];
}

export const EMPTY_ADDRESS_LIST: AddressList = { hosts: [], cidrs: [] };

const HOST = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/;

/** An address in its canonical form: IPv6 compressed and lower case, an IPv4-mapped one as IPv4; null when not an IP. */
export function canonicalAddress(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return null;
  const v6 = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!mapped) return v6;
  const hi = parseInt(mapped[1], 16);
  const lo = parseInt(mapped[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Parses `a,b,c`; every entry that is neither a host name, an address nor a range is a problem. */
export function parseAddressList(text: string): { list: AddressList; problems: string[] } {
  const list: AddressList = { hosts: [], cidrs: [] };
  const problems: string[] = [];
  for (const raw of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [addr, prefix, extra] = raw.split('/');
    const canonical = canonicalAddress(addr);
    if (canonical !== null && extra === undefined) {
      const max = isIP(canonical) === 4 ? 32 : 128;
      const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
      // A mapped range (::ffff:10.0.0.0/104) is the IPv4 range it wraps.
      const v4Bits = isIP(canonical) === 4 && isIP(addr.replace(/^\[|\]$/g, '')) === 6 ? bits - 96 : bits;
      if (Number.isInteger(v4Bits) && v4Bits >= 0 && v4Bits <= max) {
        list.cidrs.push(`${canonical}/${v4Bits}`);
        continue;
      }
    } else if (prefix === undefined && HOST.test(raw.toLowerCase()) && !/^[\d.]+$/.test(raw)) {
      list.hosts.push(raw.toLowerCase().replace(/\.$/, ''));
      continue;
    }
    problems.push(`"${raw.slice(0, 100)}" is neither a host name, an IP address nor a range such as 10.0.0.0/8`);
  }
  return { list, problems };
}

export interface AddressMatcher {
  /** The host name is listed (compared in lower case, without a trailing dot). */
  hasHost(host: string): boolean;
  /** The address lies in a listed range. */
  hasAddress(address: string): boolean;
}

export function createAddressMatcher(list: AddressList): AddressMatcher {
  const ranges = new BlockList();
  for (const cidr of list.cidrs) {
    const [addr, bits] = cidr.split('/');
    ranges.addSubnet(addr, Number(bits), isIP(addr) === 4 ? 'ipv4' : 'ipv6');
  }
  const hosts = new Set(list.hosts);
  return {
    hasHost: (host) => hosts.has(host.toLowerCase().replace(/\.$/, '')),
    hasAddress(address) {
      const canonical = canonicalAddress(address);
      if (canonical === null) return false;
      return ranges.check(canonical, isIP(canonical) === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
