import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, type Detector } from './detectors.ts';
import { TRIGGER, triggersOf } from './prefilter.ts';
import { createRedactor } from './redactor.ts';
import { createTraceNumberings } from './numbering.ts';

/** A fixed sequence of pseudo-random numbers in [0, 1) (a linear congruential generator), so that a failure replays. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return s / 2 ** 32;
  };
}

/** Pieces of every detector's matches (whole ones too) and their near misses, glued with noise. */
const PIECES = [
  'eyJ', 'eyJhbGciOiJIUzI1NiJ9', '.', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', 'eyJzdWIiOiIxIn0', '.sig_-x', 'sk-', 'sk-ant-', 'sk-proj-', 'abcdefghijklmnopqrstuvwxyz0123',
  'AKIAIOSFODNN7EXAMPLE', 'AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI', 'jane@mail.example.io', 'AKIA', 'ASIA', 'ABIA', 'ACCA', 'IOSFODNN7EXAMPLE', 'AIza', 'SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI', 'ghp_', 'gho_', 'github_pat_',
  'abcdefghijklmnopqrstuvwxyz0123456789', 'xoxb-', 'xoxp-', '123456789012-abc', 'sk_live_', 'rk_test_', '4eC39HqLyjWDarjt',
  'jane.doe+x', '@', 'mail.example', '.co.uk', 'DE89', ' 3704 0044 0532 0130 00', 'GB82WEST12345698765432', 'GB91WEST1A2B3C4D5E6F', '4111', ' 1111',
  '-1111', '5500005555555559', '378282246310005', '10.0.12.254', '127.0.0.1', '2001:db8::8a2e:370:7334', '::', ':', 'fe80:',
  '+14155552671', '+44 20 7946 0958', '(415) 555-2671', '415.555.2671', '+1 2 3 4 5 6 7 8', '1-2-3-4-5-6-7-8', '1', '42', '2024',
  '078-05-1120', '219 09 9999', '219.09.9999', '-05-', '4111.1111.1111.1111', '\u00A0', '\u202F', '\u200B', '\u00AD', '\uFEFF', 'ja\u00ADne@x\u200B.io',
  ' ', '"', '{"to":"', '"}', 'the', 'weather', 'A', 'J', 'k', '_', '-', 'x', 'gh', 'ey', 'std::string',
];
const NOISE = 'abcdefxyzAJKSIBCZ0123456789 ().-_:@"';

function generated(count: number, seed: number): string[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  return Array.from({ length: count }, () => {
    let s = '';
    const parts = 1 + Math.floor(next() * 8);
    for (let p = 0; p < parts; p++) s += next() < 0.7 ? pick(PIECES) : pick([...NOISE]);
    return s;
  });
}

/** Whether the detector's pattern has a match in `text` that its check accepts. */
function finds(d: Detector, text: string): boolean {
  return [...text.matchAll(d.pattern)].some(([m]) => !d.accept || d.accept(m));
}

describe('triggersOf', () => {
  it('is 0 for prose and the JSON of messages', () => {
    expect(triggersOf('[{"role":"user","parts":[{"type":"text","content":"will it rain in Paris tomorrow?"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris","days":3}}]}]')).toBe(0);
  });

  // Each at the very start and the very end of the text, where a search for the character that
  // follows or precedes it runs off the string.
  const EDGES: Array<[string, string, number]> = [
    ['JWT at the start', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', TRIGGER.jwt],
    ['JWT at the end', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.', TRIGGER.jwt],
    ['sk- at the start', 'sk-abcdefghijklmnopqrstuvwxyz', TRIGGER.skKey],
    ['slack at the start', 'xoxb-123456789012-abc', TRIGGER.slack],
    ['ghp_ at the start', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', TRIGGER.github],
    ['github_pat_ at the start', 'github_pat_11ABCDEFG0abcdefghijklmnop', TRIGGER.github],
    ['stripe at the start', 'rk_test_4eC39HqLyjWDarjtT1zdp7dc', TRIGGER.stripe],
    ['AWS key at the end', 'key AKIAIOSFODNN7EXAMPLE', TRIGGER.aws],
    ['AWS prefix as the last four characters', 'xACCA', TRIGGER.aws],
    ['Google key at the start', 'AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI', TRIGGER.google],
    ['email at the start', 'a@b.io said', TRIGGER.email],
    ['email at the end', 'write to a@b.io', TRIGGER.email],
    ['IBAN at the start', 'DE89 3704 0044 0532 0130 00', TRIGGER.digits],
    ['IBAN with no three digits in a row', 'GB91WEST1A2B3C4D5E6F', TRIGGER.digits],
    ['eyJ as the whole text', 'eyJ', TRIGGER.jwt],
    ['card split by spaces', '4111 1111 1111 1111', TRIGGER.digits],
    ['card split by dashes', '3782-822463-10005', TRIGGER.digits],
    ['card split by zero-width spaces', '4\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1\u200B1', TRIGGER.digits],
    ['card split by no-break spaces', '4111\u00A01111\u202F1111\u00A01111', TRIGGER.digits],
    ['SSN', '078-05-1120', TRIGGER.digits],
    ['IPv4 of single digits', '1.2.3.4', TRIGGER.digits],
    ['phone with no two digits in a row', '+1 2 3 4 5 6 7 8', TRIGGER.digits],
    ['IPv6 whose digits come after its colons', 'fe::ab and 7', TRIGGER.ipv6],
    ['IPv6 whose digits come before its colons', '7 and fe:ab::', TRIGGER.ipv6],
    ['IPv6 with four hex digits between its colons', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', TRIGGER.ipv6],
  ];
  it.each(EDGES)('finds %s', (_name, text, bit) => {
    expect(triggersOf(text) & bit).toBe(bit);
  });

  it('sets the bit of every detector that finds a value, on 20,000 generated strings', () => {
    const matched = new Map<number, number>();
    for (const text of generated(20_000, 24)) {
      const triggers = triggersOf(text);
      for (const [i, d] of BUILTIN_DETECTORS.entries()) {
        if (!finds(d, text)) continue;
        matched.set(i, (matched.get(i) ?? 0) + 1);
        if ((triggers & d.trigger) === 0) expect.fail(`${d.kind} matches ${JSON.stringify(text)} but its trigger is unset`);
      }
    }
    // Each detector met a fair number of matches (the test is not vacuous).
    for (const [i, d] of BUILTIN_DETECTORS.entries()) expect(matched.get(i) ?? 0, `${i} ${d.kind}`).toBeGreaterThan(20);
  });
});

/** The redaction as it was before the prefilter: every detector's pattern over the text, in order. */
function reference(text: string, found: string[], numbering = createTraceNumberings(1).of('t')): string {
  let out = text;
  for (const d of BUILTIN_DETECTORS) {
    out = out.replace(d.pattern, (m: string) => {
      if (d.accept && !d.accept(m)) return m;
      found.push(d.kind);
      return numbering.placeholder(d.kind, m);
    });
  }
  return out;
}

describe('redaction with the prefilter', () => {
  it('rewrites 20,000 generated strings exactly as running every pattern does', () => {
    for (const text of generated(20_000, 2024)) {
      const found: string[] = [];
      const r = createRedactor({ mode: 'redact', rules: [], key: 'test-key-0123456789', onFound: (rule) => found.push(rule) });
      const expectedFound: string[] = [];
      const expected = text.length < 3 ? text : reference(text, expectedFound);
      expect([r.text(text), found], JSON.stringify(text)).toEqual([expected, expectedFound]);
    }
  });
});
