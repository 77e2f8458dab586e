import { describe, expect, it } from 'vitest';
import { maskText } from './mask.ts';
import { errorClassOf } from './error-class.ts';

describe('masking', () => {
  it('masks quoted values, URLs, e-mail addresses, ids and numbers', () => {
    expect(maskText('Order #A1234 not found for user "bob@x.com"')).toBe('Order # <id> not found for user <str>');
    expect(maskText('HTTP 503 Service Unavailable from https://api.x.com/v1/flights?id=3')).toBe('HTTP <num> Service Unavailable from <url>');
    expect(maskText("invalid value 'tomorrow' for parameter 'date'")).toBe('invalid value <str> for parameter <str>');
    expect(maskText('timeout after 30.5s calling 7f3a9c2e11, mail me at a.b@c.org.')).toBe('timeout after <num> calling <id> , mail me at <email>');
    expect(maskText('request 0b1c6a5e-8f43-4d9b-a3a5-0c1f2e3d4b5a failed')).toBe('request <id> failed');
  });

  it('bounds what it reads: 64 tokens at most', () => {
    expect(maskText('word '.repeat(500)).split(' ')).toHaveLength(64);
  });

  it('classes errors', () => {
    expect(['HTTP 503 Service Unavailable', 'read ETIMEDOUT', '429 Too Many Requests', 'order not found', "invalid value 'x' for date", 'permission denied', 'boom'].map(errorClassOf)).toEqual([
      'unavailable', 'timeout', 'rate_limit', 'not_found', 'invalid_argument', 'auth', 'other',
    ]);
  });
});
