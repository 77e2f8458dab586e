import { isIPv6 } from 'node:net';
import { passesIbanCheck, passesLuhn } from './checksums.ts';
import { TRIGGER } from './prefilter.ts';

/**
 * A built-in detector: what it finds, its bit in prefilter.ts's one pass that says which detectors
 * the text may hold (most strings hold none, and the bit spares the scan), a test of its own for
 * text already rewritten by an earlier detector, and a check on each match (a checksum) that keeps
 * look-alikes.
 *
 * Every pattern must run in time linear in the text, whatever the text (it is hostile): each
 * starts with a look-behind that allows one start per run of the characters it is made of, and
 * its quantifiers are either bounded or followed by a character they cannot match, so that a
 * failed attempt costs at most the run it scanned. detectors.test.ts feeds each long adversarial
 * strings.
 */
export interface Detector {
  /** The placeholder's kind (`<email:1>`) and the metric's rule label. */
  kind: string;
  pattern: RegExp;
  /** Its bit in triggersOf (prefilter.ts): unset, the text holds no match. */
  trigger: number;
  /** The same test on its own, for text already rewritten by an earlier detector. */
  mayContain(text: string): boolean;
  accept?(match: string): boolean;
  /** The value numbered (the same value spelt with invisible characters gets the same placeholder); default the match. */
  canonical?(match: string): string;
}

const hasDigit = (text: string): boolean => /\d/.test(text);

/**
 * Characters that show as nothing (soft hyphen; zero-width space, non-joiner and joiner; word
 * joiner; zero-width no-break space): put inside a card number or an address, they leave it as
 * readable as without, so the patterns of cards, SSNs and emails allow them anywhere inside.
 */
const INVISIBLE = '\\u00AD\\u200B-\\u200D\\u2060\\uFEFF';
/** One visible character between digit groups: space, dot, dash, no-break space, narrow no-break space. */
const GAP = ' .\\u00A0\\u202F-';
const INVISIBLES = new RegExp(`[${INVISIBLE}]`, 'g');
const withoutInvisibles = (match: string): string => match.replace(INVISIBLES, '');
const CARD_START = new RegExp(`[2-6](?:[${INVISIBLE}]{0,3}\\d){3}`);

/**
 * Luhn; and digit groups written with dots (rarer for cards than for versions and build numbers)
 * must be grouped as cards are: fours with a shorter last group, or 4-6-5 / 4-6-4.
 */
function acceptCard(match: string): boolean {
  if (!passesLuhn(digitsOf(match))) return false;
  if (!match.includes('.')) return true;
  const groups = withoutInvisibles(match).split(/[^\d]/).map((g) => g.length);
  const last = groups[groups.length - 1];
  if (groups.length >= 4 && last >= 1 && last <= 4 && groups.slice(0, -1).every((n) => n === 4)) return true;
  return groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (last === 4 || last === 5);
}

/** The same separator twice; never issued: area 000, 666 or 900-999, group 00, serial 0000. */
function acceptSsn(match: string): boolean {
  const m = withoutInvisibles(match);
  if (m[3] !== m[6]) return false;
  const area = Number(m.slice(0, 3));
  return area !== 0 && area !== 666 && area < 900 && m.slice(4, 6) !== '00' && m.slice(7) !== '0000';
}
const digitsOf = (text: string): string => text.replace(/\D/g, '');

function acceptPhone(match: string): boolean {
  const digits = digitsOf(match);
  if (match.startsWith('+')) return digits.length >= 8 && digits.length <= 15;
  // Without a country code only grouped numbers are phones: a bare run of ten digits is more often an id.
  if (digits.length < 10 || digits.length > 15) return false;
  const groups = match.split(/[ .()-]+/).filter(Boolean);
  return groups.length >= 3 && groups.every((g) => g.length <= 4);
}

/** Loopback and unspecified addresses name no one (and are what local LLM servers listen on). */
const acceptIpv4 = (match: string): boolean => !match.startsWith('127.') && match !== '0.0.0.0';

function acceptIpv6(match: string): boolean {
  if (!isIPv6(match) || match === '::1' || match === '::') return false;
  // "d::" in C++ (std::string) or "a:b::" are valid addresses but text: at least two groups and a digit.
  return match.split(':').filter(Boolean).length >= 2 && /\d/.test(match);
}

/** In the order they run: tokens first (their digits would otherwise be read as phones), phones last. */
export const BUILTIN_DETECTORS: readonly Detector[] = [
  {
    kind: 'jwt',
    trigger: TRIGGER.jwt,
    pattern: /(?<![\w-])eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*/g,
    mayContain: (t) => t.includes('eyJ'),
  },
  {
    kind: 'anthropic_key',
    trigger: TRIGGER.skKey,
    pattern: /(?<![\w-])sk-ant-[\w-]{20,400}/g,
    mayContain: (t) => t.includes('sk-ant-'),
  },
  {
    kind: 'openai_key',
    trigger: TRIGGER.skKey,
    pattern: /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[\w-]{20,400}/g,
    mayContain: (t) => t.includes('sk-'),
  },
  {
    kind: 'aws_key',
    trigger: TRIGGER.aws,
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    mayContain: (t) => /A(?:KI|SI|BI|CC)A/.test(t),
  },
  {
    kind: 'github_token',
    trigger: TRIGGER.github,
    pattern: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_\w{22,255})/g,
    mayContain: (t) => /gh[pousr]_|github_pat_/.test(t),
  },
  {
    kind: 'slack_token',
    trigger: TRIGGER.slack,
    pattern: /(?<![\w-])xox[abposre]-[A-Za-z0-9-]{10,250}/g,
    mayContain: (t) => t.includes('xox'),
  },
  {
    kind: 'stripe_key',
    trigger: TRIGGER.stripe,
    pattern: /(?<![\w-])[sr]k_(?:live|test)_[A-Za-z0-9]{16,250}/g,
    mayContain: (t) => t.includes('k_live_') || t.includes('k_test_'),
  },
  {
    kind: 'google_key',
    trigger: TRIGGER.google,
    pattern: /(?<![\w-])AIza[\w-]{35}(?![\w-])/g,
    mayContain: (t) => t.includes('AIza'),
  },
  {
    kind: 'email',
    trigger: TRIGGER.email,
    // Invisible characters inside (a soft hyphen, a zero-width space) leave the address as readable as without.
    pattern: new RegExp(`(?<![\\w.%+${INVISIBLE}-])[\\w.%+${INVISIBLE}-]{1,64}@(?:[A-Za-z0-9${INVISIBLE}-]{1,63}\\.){1,8}[A-Za-z](?:[${INVISIBLE}]{0,3}[A-Za-z]){1,23}(?![\\w-])`, 'g'),
    mayContain: (t) => t.includes('@'),
    canonical: withoutInvisibles,
  },
  {
    kind: 'iban',
    trigger: TRIGGER.digits,
    pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
    mayContain: (t) => /[A-Z]{2}\d\d/.test(t),
    accept: (m) => passesIbanCheck(m.replace(/ /g, '')),
  },
  {
    // Issuer prefixes 2-6 (Mastercard 2-series, Amex/Diners/JCB, Visa, Mastercard, Discover/UnionPay/
    // Maestro): spares the nanosecond timestamps (1…) of the same length that pass Luhn one time in ten.
    kind: 'card',
    trigger: TRIGGER.digits,
    pattern: new RegExp(`(?<![\\w-])[2-6](?:[${INVISIBLE}]{0,3}\\d){3}(?:[${INVISIBLE}]{0,3}(?:[${GAP}][${INVISIBLE}]{0,3})?\\d){9,15}(?!\\w)`, 'g'),
    mayContain: (t) => CARD_START.test(t),
    accept: acceptCard,
    canonical: withoutInvisibles,
  },
  {
    kind: 'ip',
    trigger: TRIGGER.digits,
    pattern: /(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)/g,
    mayContain: (t) => /\d\.\d/.test(t),
    accept: acceptIpv4,
  },
  {
    kind: 'ip',
    trigger: TRIGGER.ipv6,
    pattern: /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g,
    mayContain: (t) => /[0-9A-Fa-f]?:[0-9A-Fa-f]{0,4}:/.test(t) && hasDigit(t),
    accept: acceptIpv6,
  },
  {
    // A separator on both sides (the same one): a bare run of nine digits is more often an id. Not
    // a part of a longer run of digit groups (a phone number, a grouped id).
    kind: 'ssn',
    trigger: TRIGGER.digits,
    pattern: new RegExp(`(?<![\\w+.-]|\\d[${GAP}])\\d{3}[${INVISIBLE}]{0,3}[${GAP}][${INVISIBLE}]{0,3}\\d{2}[${INVISIBLE}]{0,3}[${GAP}][${INVISIBLE}]{0,3}\\d{4}(?!\\w|[${GAP}]\\d)`, 'g'),
    mayContain: (t) => /\d{3}\D{1,7}\d{2}\D{1,7}\d{4}/.test(t),
    accept: acceptSsn,
    canonical: withoutInvisibles,
  },
  {
    kind: 'phone',
    trigger: TRIGGER.digits,
    // Not a part of a longer hyphen- or dot-joined token: a UUID's all-digit groups (1234-4567-8901)
    // are an id, not a number to call.
    pattern: /(?<![\w+]|\w[-.])(?:\+|\()?\d[\d ().-]{6,22}\d(?!\w|[-.]\w)/g,
    mayContain: (t) => /\d[\d ().-]{6}/.test(t),
    accept: acceptPhone,
  },
];
