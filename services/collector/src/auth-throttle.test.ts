import { describe, expect, it } from 'vitest';
import { peerAddress } from './auth-throttle.ts';

describe('peerAddress', () => {
  it('drops the port of socket and gRPC peers, keeps bare addresses', () => {
    expect(peerAddress('ipv4:127.0.0.1:50123')).toBe('127.0.0.1');
    expect(peerAddress('ipv6:[::1]:50123')).toBe('::1');
    expect(peerAddress('::ffff:10.0.0.7')).toBe('::ffff:10.0.0.7');
    expect(peerAddress('10.0.0.7')).toBe('10.0.0.7');
    expect(peerAddress(undefined)).toBeUndefined();
  });
});
