/**
 * Which built-in detectors may match in a string, found with the engine's fast searches: most
 * strings (prompts, tool results, the JSON of messages) hold nothing to redact, and a detector's
 * test of its own costs a scan of the whole string each (14 of them were 40% of the collector's
 * CPU per span, bench/results/collector.md).
 *
 * Searching one character (`indexOf`) runs at memory speed, a regular expression or a loop over
 * the characters in JavaScript at a tenth of it. So the characters that every match of a
 * detector contains and prose rarely does (`@`, `J`, `-`, `_`, `A`, `:`) are searched on their
 * own, and each place found is checked by hand; the detectors made of digits share one regular
 * expression.
 *
 * Each bit is set whenever its detectors' patterns can match anywhere in the text (a superset: the
 * patterns and their checks decide). Missing one would let a secret through: prefilter.test.ts
 * checks each bit against the patterns on generated strings, and redactor.test.ts compares the
 * redaction with running every pattern.
 */
export const TRIGGER = {
  /** `eyJ` */
  jwt: 1 << 0,
  /** `sk-` (also `sk-ant-`) */
  skKey: 1 << 1,
  /** `A(KI|SI|BI|CC)A` */
  aws: 1 << 2,
  /** `gh[pousr]_` or `github_pat_` */
  github: 1 << 3,
  /** `xox[abposre]-` */
  slack: 1 << 4,
  /** `k_live_` or `k_test_` */
  stripe: 1 << 5,
  /** `AIza` */
  google: 1 << 6,
  /** `@` */
  email: 1 << 7,
  /** IBAN, card, IPv4 and phone: `[A-Z]{2}\d\d` or a digit and six more of `[\d ().-]` */
  digits: 1 << 8,
  /** `:[0-9A-Fa-f]{0,4}:` and a digit anywhere */
  ipv6: 1 << 9,
} as const;

/**
 * What every match of a digit detector contains: cards (13 digits or more, separators between),
 * SSNs (nine digits, two separators), IPv4 addresses (seven characters or more of digits and dots)
 * and phones all hold a digit and six more of digits, `[ ().-]`, no-break spaces and invisible
 * characters (detectors.ts); an IBAN holds `[A-Z]{2}\d\d` (its letters looked at behind its digits).
 */
const DIGIT_TRIGGERS = /\d(?:[\d ().\u00A0\u202F\u00AD\u200B-\u200D\u2060\uFEFF-]{6}|\d(?<=[A-Z]{2}\d\d))/;
const DIGIT = /\d/;

const code = (s: string): number => s.charCodeAt(0);
const LOWER_E = code('e');
const LOWER_Y = code('y');
const LOWER_S = code('s');
const LOWER_K = code('k');
const LOWER_G = code('g');
const LOWER_H = code('h');
const UPPER_A = code('A');
const UPPER_C = code('C');
const UPPER_I = code('I');
const COLON = code(':');
/** `[abposre]` after `xox`, `[pousr]` after `gh`, `[KSB]` before `IA` in AWS keys. */
const SLACK_TYPES = new Set([...'abposre'].map(code));
const GITHUB_TYPES = new Set([...'pousr'].map(code));
const AWS_TYPES = new Set([...'KSB'].map(code));

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** `:` at `i` followed by at most four hex digits and another `:`. */
function colonPairAt(t: string, i: number): boolean {
  const end = Math.min(t.length, i + 6);
  for (let j = i + 1; j < end; j++) {
    const c = t.charCodeAt(j);
    if (c === COLON) return true;
    if (!isHex(c)) return false;
  }
  return false;
}

/** `eyJ`, found at its `J`. */
function hasJwtStart(t: string): boolean {
  for (let i = t.indexOf('J', 2); i >= 0; i = t.indexOf('J', i + 1)) {
    if (t.charCodeAt(i - 1) === LOWER_Y && t.charCodeAt(i - 2) === LOWER_E) return true;
  }
  return false;
}

/** `sk-` and `xox[abposre]-`, found at their `-`. */
function dashTriggers(t: string): number {
  let found = 0;
  for (let i = t.indexOf('-', 2); i >= 0; i = t.indexOf('-', i + 1)) {
    const before = t.charCodeAt(i - 1);
    if (before === LOWER_K && t.charCodeAt(i - 2) === LOWER_S) found |= TRIGGER.skKey;
    else if (i >= 4 && SLACK_TYPES.has(before) && t.startsWith('xox', i - 4)) found |= TRIGGER.slack;
    if (found === (TRIGGER.skKey | TRIGGER.slack)) break;
  }
  return found;
}

/** `gh[pousr]_`, `github_pat_`, `k_live_` and `k_test_`, found at their last `_`. */
function underscoreTriggers(t: string): number {
  let found = 0;
  for (let i = t.indexOf('_', 3); i >= 0; i = t.indexOf('_', i + 1)) {
    if (GITHUB_TYPES.has(t.charCodeAt(i - 1)) && t.charCodeAt(i - 2) === LOWER_H && t.charCodeAt(i - 3) === LOWER_G) found |= TRIGGER.github;
    else if (i >= 10 && t.startsWith('github_pat', i - 10)) found |= TRIGGER.github;
    else if (i >= 6 && (t.startsWith('k_live', i - 6) || t.startsWith('k_test', i - 6))) found |= TRIGGER.stripe;
    if (found === (TRIGGER.github | TRIGGER.stripe)) break;
  }
  return found;
}

/** `AIza` and `A(KI|SI|BI|CC)A`, found at their first `A`. */
function upperATriggers(t: string): number {
  let found = 0;
  for (let i = t.indexOf('A'); i >= 0 && i + 3 < t.length; i = t.indexOf('A', i + 1)) {
    if (t.startsWith('AIza', i)) found |= TRIGGER.google;
    else if (t.charCodeAt(i + 3) === UPPER_A) {
      const a = t.charCodeAt(i + 1);
      const b = t.charCodeAt(i + 2);
      if ((b === UPPER_I && AWS_TYPES.has(a)) || (a === UPPER_C && b === UPPER_C)) found |= TRIGGER.aws;
    }
    if (found === (TRIGGER.google | TRIGGER.aws)) break;
  }
  return found;
}

function hasColonPair(t: string): boolean {
  for (let i = t.indexOf(':'); i >= 0; i = t.indexOf(':', i + 1)) if (colonPairAt(t, i)) return true;
  return false;
}

/** The TRIGGER bits of the detectors that may match in `t`. */
export function triggersOf(t: string): number {
  let found = dashTriggers(t) | underscoreTriggers(t) | upperATriggers(t);
  if (t.includes('@')) found |= TRIGGER.email;
  if (hasJwtStart(t)) found |= TRIGGER.jwt;
  if (DIGIT_TRIGGERS.test(t)) found |= TRIGGER.digits;
  if (hasColonPair(t) && DIGIT.test(t)) found |= TRIGGER.ipv6;
  return found;
}
