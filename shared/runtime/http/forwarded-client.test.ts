import { describe, expect, it } from 'vitest';
import { createAddressMatcher, parseAddressList } from './address-list.ts';
import { forwardedClient } from './forwarded-client.ts';

const trusted = createAddressMatcher(parseAddressList('10.0.0.1,192.168.0.0/16').list);

describe('forwardedClient', () => {
  it('believes X-Forwarded-For only from a trusted proxy', () => {
    expect(forwardedClient('203.0.113.9', '198.51.100.1', trusted)).toBe('203.0.113.9');
    expect(forwardedClient('::ffff:10.0.0.1', '198.51.100.1', trusted)).toBe('198.51.100.1');
  });

  it('takes the nearest hop that is not itself a trusted proxy, never what the client wrote further left', () => {
    expect(forwardedClient('10.0.0.1', '1.1.1.1, 198.51.100.7, 192.168.4.4', trusted)).toBe('198.51.100.7');
    expect(forwardedClient('10.0.0.1', 'spoofed, 198.51.100.7', trusted)).toBe('198.51.100.7');
  });

  it('falls back to the proxy itself when the header is missing, bad or names only proxies', () => {
    expect(forwardedClient('10.0.0.1', undefined, trusted)).toBe('10.0.0.1');
    expect(forwardedClient('10.0.0.1', '198.51.100.7, not-an-ip', trusted)).toBe('10.0.0.1');
    expect(forwardedClient('10.0.0.1', '192.168.1.1', trusted)).toBe('10.0.0.1');
    expect(forwardedClient(null, '198.51.100.7', trusted)).toBeNull();
  });
});
