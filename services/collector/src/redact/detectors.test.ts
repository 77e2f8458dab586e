import { describe, expect, it } from 'vitest';
import { passesIbanCheck, passesLuhn } from './checksums.ts';
import { createRedactor } from './redactor.ts';

function redact(text: string): string {
  const r = createRedactor({ mode: 'redact', rules: [], key: 'test-key-0123456789', onFound: () => undefined });
  return r.text(text);
}

const POSITIVES: Array<[string, string, string]> = [
  ['email', 'write to jane.doe+agents@mail.example.co.uk today', 'write to <email:1> today'],
  ['email in JSON', '{"to":"ops@acme.io"}', '{"to":"<email:1>"}'],
  ['phone E.164', 'call +14155552671 now', 'call <phone:1> now'],
  ['phone grouped international', 'call +44 20 7946 0958.', 'call <phone:1>.'],
  ['phone US', 'call (415) 555-2671 or 415.555.2671', 'call <phone:1> or <phone:2>'],
  ['phone ending a sentence or in a URI', 'tel:415-555-2671. Or 415 555 2671.', 'tel:<phone:1>. Or <phone:2>.'],
  ['card spaced (Luhn)', 'card 4111 1111 1111 1111 exp 12/29', 'card <card:1> exp 12/29'],
  ['card plain (Luhn)', 'pan=5500005555555559;', 'pan=<card:1>;'],
  ['card Amex dashes', '3782-822463-10005', '<card:1>'],
  ['card with dots', 'card 4111.1111.1111.1111 exp', 'card <card:1> exp'],
  ['card with no-break spaces', 'card 4111\u00A01111\u00A01111\u00A01111 and 4111\u202F1111\u202F1111\u202F1111', 'card <card:1> and <card:2>'],
  ['card with zero-width separators', '4111\u200B1111\u200C1111\u200D1111 4111\u20601111\uFEFF1111\u200B\u200B1111', '<card:1> <card:1>'],
  ['card with a zero-width character inside a group and beside a space', '41\u200B11 \u200B1111 1111\u00AD 1111', '<card:1>'],
  ['Amex with dots', '3782.822463.10005', '<card:1>'],
  ['email with soft hyphens', 'write to ja\u00ADne@exam\u00ADple.com now', 'write to <email:1> now'],
  ['email with zero-width characters', '\u200Bjane\u200B@\u200Bexample.co\u200Bm and jane@example.com', '<email:1> and <email:1>'],
  ['email with a zero-width character after it', 'jane@example.com\u200B.', '<email:1>\u200B.'],
  ['SSN with dashes', 'SSN 078-05-1120.', 'SSN <ssn:1>.'],
  ['SSN spaced and dotted', '219 09 9999 or 219.09.9999 or 219\u00A009\u00A09999', '<ssn:1> or <ssn:2> or <ssn:3>'],
  ['SSN with zero-width characters', '\u200B078-\u200B05-1120', '\u200B<ssn:1>'],
  ['IBAN grouped', 'IBAN DE89 3704 0044 0532 0130 00 please', 'IBAN <iban:1> please'],
  ['IBAN compact', 'GB82WEST12345698765432', '<iban:1>'],
  ['IPv4', 'from 10.0.12.254:8080', 'from <ip:1>:8080'],
  ['IPv6', 'peer 2001:db8::8a2e:370:7334 said', 'peer <ip:1> said'],
  ['OpenAI key', 'OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz', 'OPENAI_API_KEY=<openai_key:1>'],
  ['OpenAI legacy key', 'sk-abcdefghijklmnopqrstuvwxyz012345', '<openai_key:1>'],
  ['Anthropic key', 'x-api-key: sk-ant-api03-abcdefghijklmnopqrstuv-wx_yz', 'x-api-key: <anthropic_key:1>'],
  ['AWS key', 'AKIAIOSFODNN7EXAMPLE', '<aws_key:1>'],
  ['GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token <github_token:1>'],
  ['GitHub fine-grained', 'github_pat_11ABCDEFG0abcdefghijklmnop_qrstuvwxyz', '<github_token:1>'],
  ['Slack token', 'xoxb-123456789012-abcdefghijkl', '<slack_token:1>'],
  ['Stripe key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', '<stripe_key:1>'],
  ['Google key', 'key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI', 'key=<google_key:1>'],
  ['JWT', 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', 'Bearer <jwt:1>'],
];

const NEGATIVES: Array<[string, string]> = [
  ['not an email', 'user@localhost and @mention and a@b'],
  ['card failing Luhn', 'card 4111 1111 1111 1112'],
  ['nanosecond timestamp passing Luhn', '1732567890123456786'],
  ['IBAN failing mod 97', 'DE89 3704 0044 0532 0130 02'],
  ['version and decimal', 'v1.2.3 and 3.14159265358 and 256.1.1.1'],
  ['time and C++ scope', '10:30:45 std::string a::b'],
  ['loopback', 'http://127.0.0.1:4318 and [::1]:80 and 0.0.0.0'],
  ['bare ten digits (an id)', 'order 4155552671'],
  ['UUIDs whose groups are digits', 'sim-e9813af9-1234-4567-8901-4014edda565b and 0e9813af-1234-4567-8901-401412345678'],
  ['dotted version of digit groups', 'release 2026.1125.0412.7781.3'],
  ['dotted digit groups not grouped as cards are (a build number passing Luhn)', 'build 4111.11.111111.1111'],
  ['dates', '2026-11-29 and 29.11.2026 and 11/29/2026 and 2026-11-29T10:30:00'],
  ['SSN shapes never issued', '000-12-3456 666-12-3456 912-34-5678 123-00-4567 123-45-0000'],
  ['SSN shape with two separators', '123-45.6789'],
  ['SSN shape inside longer digit groups', '123-45-67890 and v123.45.6789 and A123-45-6789'],
  ['ISBN', 'ISBN 978-3-16-148410-0'],
  ['short sk- word', 'sk-learn and sk-123'],
  ['AKIA too short', 'AKIAIOSFODNN7'],
  ['eyJ without three parts', 'eyJhbGciOiJIUzI1NiJ9 alone'],
  ['ghp_ too short', 'ghp_abc'],
];

describe('built-in detectors', () => {
  it.each(POSITIVES)('%s', (_name, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each(NEGATIVES)('keeps %s', (_name, input) => {
    expect(redact(input)).toBe(input);
  });

  it('reads phone numbers and longer digit groups as phones, not SSNs', () => {
    expect(redact('order 415-555-2671 and 415 555 2671 and 1 123 45 6789 and 123-45-6789-1 and 9123-45-6789')).toBe('order <phone:1> and <phone:2> and <phone:3> and <phone:4> and <phone:5>');
  });

  it('numbers each kind on its own, the same value the same', () => {
    expect(redact('a@x.io b@x.io a@x.io 10.0.0.1 10.0.0.2 10.0.0.1')).toBe('<email:1> <email:2> <email:1> <ip:1> <ip:2> <ip:1>');
  });

  // Each string is one that makes a naive pattern backtrack quadratically (or worse) from each of
  // its positions; a pattern that did would not finish within the test's timeout.
  const N = 200_000;
  const ADVERSARIAL: Array<[string, string]> = [
    ['email local part without @', 'a'.repeat(N)],
    ['many @', 'a@'.repeat(N / 2)],
    ['domain without a TLD', `a@${'b-'.repeat(N / 2)}`],
    ['dotted labels', `a@${'b.'.repeat(N / 2)}1`],
    ['digits', '4'.repeat(N)],
    ['digits and spaces', '4 '.repeat(N / 2)],
    ['phone-like run', `+${'1 '.repeat(N / 2)}x`],
    ['parentheses', '(1) '.repeat(N / 4)],
    ['dots and digits', '1.'.repeat(N / 2)],
    ['colons', '1:'.repeat(N / 2)],
    ['hex and colons', 'ab:'.repeat(N / 3)],
    ['JWT headers without dots', `eyJ${'a'.repeat(N)}`],
    ['JWT two parts', 'eyJa.eyJb '.repeat(N / 10)],
    ['key prefixes', 'sk-'.repeat(N / 3)],
    ['IBAN-like', `DE89${'A'.repeat(N)}`],
    ['upper case and digits', 'AB12 '.repeat(N / 5)],
    ['digits between zero-width characters', '4\u200B\u200B\u200B'.repeat(N / 4)],
    ['digits between runs of invisible characters', '4\u200B\u00AD\uFEFF\u2060 '.repeat(N / 6)],
    ['digits and no-break spaces', '4\u00A0'.repeat(N / 2)],
    ['SSN-like groups', '123-45-'.repeat(N / 7)],
    ['email local part with soft hyphens', `${'a\u00AD'.repeat(N / 2)}@`],
    ['domain with invisible characters', `a@${'b\u200B-'.repeat(N / 3)}`],
    ['top-level domain with invisible characters', `a@b.${'c\u200B'.repeat(N / 2)}1`],
  ];
  it.each(ADVERSARIAL)('runs in linear time on %s', (_name, input) => {
    const out = redact(input);
    expect(out.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('checksums', () => {
  it('Luhn', () => {
    expect(['4111111111111111', '5500005555555559', '378282246310005', '6011111111111117'].map(passesLuhn)).toEqual([true, true, true, true]);
    expect(['4111111111111112', '1234567812345678', ''].map(passesLuhn)).toEqual([false, false, false]);
  });

  it('IBAN mod 97', () => {
    expect(['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606'].map(passesIbanCheck)).toEqual([true, true, true]);
    expect(['DE89370400440532013001', 'GB82WEST1234569876543', 'DE89'].map(passesIbanCheck)).toEqual([false, false, false]);
  });
});
