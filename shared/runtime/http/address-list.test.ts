import { describe, expect, it } from 'vitest';
import { canonicalAddress, createAddressMatcher, parseAddressList } from './address-list.ts';
import { specialAddressKind } from './special-addresses.ts';

describe('address lists', () => {
  it('parses hosts, addresses and ranges, IPv4-mapped IPv6 as IPv4, and names every bad entry', () => {
    expect(parseAddressList(' 127.0.0.1, 10.0.0.0/8 ,Hooks.Internal., ::1, fd00::/8, ::ffff:10.0.0.0/104 ')).toEqual({
      list: { hosts: ['hooks.internal'], cidrs: ['127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::/8', '10.0.0.0/8'] },
      problems: [],
    });
    expect(parseAddressList('10.0.0.0/33,1.2.3,http://x,a b').problems).toEqual([
      '"10.0.0.0/33" is neither a host name, an IP address nor a range such as 10.0.0.0/8',
      '"1.2.3" is neither a host name, an IP address nor a range such as 10.0.0.0/8',
      '"http://x" is neither a host name, an IP address nor a range such as 10.0.0.0/8',
      '"a b" is neither a host name, an IP address nor a range such as 10.0.0.0/8',
    ]);
  });

  it('matches addresses in any spelling against the ranges', () => {
    const m = createAddressMatcher(parseAddressList('127.0.0.1,10.0.0.0/8,hooks.internal').list);
    expect(['127.0.0.1', '::ffff:127.0.0.1', '::ffff:7f00:1', '10.9.8.7', '127.0.0.2', '192.168.0.1'].map((a) => m.hasAddress(a))).toEqual([true, true, true, true, false, false]);
    expect([m.hasHost('HOOKS.internal.'), m.hasHost('other.internal')]).toEqual([true, false]);
    expect([canonicalAddress('[::FFFF:A9FE:A9FE]'), canonicalAddress('example.com')]).toEqual(['169.254.169.254', null]);
  });

  it('knows which addresses are not public', () => {
    expect(['8.8.8.8', '2606:4700::1111', '100.63.255.255', '100.128.0.0', '172.32.0.1'].map(specialAddressKind)).toEqual([null, null, null, null, null]);
    expect(['100.127.0.1', '::ffff:192.168.0.1', '::7f00:1', '64:ff9b:1::a00:1', 'ff02::1'].map(specialAddressKind)).toEqual(['carrier-grade NAT', 'private', 'IPv4-compatible', 'local NAT64', 'multicast']);
  });
});
