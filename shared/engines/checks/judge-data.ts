/**
 * The one encoder of trace-derived data for judge prompts (messages, tool names, arguments,
 * results, outputs). Trace text is hostile; once encoded it can neither fake a dialog turn nor
 * plant an answer marker:
 *
 * - Everything is JSON: a string stays on one line (newlines become `\n`), a list puts one item
 *   per line, so a message that writes `\n[2] tool result for c1: …` is still inside its string.
 * - Characters a reader cannot see (zero-width, bidi controls, variation selectors, other format
 *   and control characters, line separators, unassigned and private-use code points) are written
 *   as visible `\uXXXX` escapes, so they cannot hide between two brackets.
 * - No two bracket-like characters of the same direction stay adjacent: a space goes between them,
 *   for runs of any length (`[[[True]]]` → `[ [ [True] ] ]`), for every Unicode open/close
 *   punctuation (`［［`, `【【`), for `<` / `>` look-alikes (our fence is `<<<`), and by the NFKC
 *   form of each character (`(⑴` would normalize to `((1)`). Single characters that look like a
 *   doubled bracket (`⟦`, `〚`, `⸨`, `⦅`, `｟`) and combining marks on a bracket are escaped.
 *
 * The result still parses as JSON (spaces land between tokens or inside strings; escapes are JSON
 * escapes), to the original value except for the inserted spaces.
 */
export function encodeJudgeData(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => neutralizeJsonText(JSON.stringify(v ?? null))).join(',\n')}\n]`;
  }
  return neutralizeJsonText(JSON.stringify(value ?? null));
}

const NONE = 0;
const OPEN = 1;
const CLOSE = 2;
type Side = typeof NONE | typeof OPEN | typeof CLOSE;

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;
const MARK = /\p{M}/u;
const OPENER = /[\p{Ps}‹«]/u;
const CLOSER = /[\p{Pe}›»]/u;
// One character that reads as a doubled bracket.
const DOUBLE_LOOKALIKE = new Set([0x27e6, 0x27e7, 0x301a, 0x301b, 0x2e28, 0x2e29, 0x2985, 0x2986, 0xff5f, 0xff60]);

function asciiSide(code: number): Side {
  switch (code) {
    case 0x5b: // [
    case 0x28: // (
    case 0x7b: // {
    case 0x3c: // <
      return OPEN;
    case 0x5d:
    case 0x29:
    case 0x7d:
    case 0x3e:
      return CLOSE;
    default:
      return NONE;
  }
}

function baseSide(ch: string): Side {
  const code = ch.codePointAt(0)!;
  if (code < 0x80) return asciiSide(code);
  if (OPENER.test(ch)) return OPEN;
  if (CLOSER.test(ch)) return CLOSE;
  return NONE;
}

interface Tables {
  /** Code points whose NFKC form differs and starts or ends with a bracket: [first side, last side]. */
  compat: Map<number, [Side, Side]>;
  /** Runs of characters that may need a space or an escape; everything else is copied as is. */
  special: RegExp;
}

// Built once, on first use, from the engine's own Unicode tables (a scan of about 50 ms).
let tables: Tables | undefined;

function getTables(): Tables {
  if (tables) return tables;
  const compat = new Map<number, [Side, Side]>();
  for (let cp = 0x80; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const n = ch.normalize('NFKC');
    if (n === ch) continue;
    const chars = [...n];
    const first = baseSide(chars[0]);
    const last = baseSide(chars[chars.length - 1]);
    if (first !== NONE || last !== NONE) compat.set(cp, [first, last]);
  }
  const extra = [...compat.keys(), ...DOUBLE_LOOKALIKE].map((cp) => `\\u{${cp.toString(16)}}`).join('');
  const special = new RegExp(`[\\[\\](){}<>‹›«»\\p{Ps}\\p{Pe}\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Default_Ignorable_Code_Point}\\p{M}${extra}]+`, 'gu');
  tables = { compat, special };
  return tables;
}

function escape(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** One run of special characters (the character before it, if any, is plain text). */
function neutralizeRun(run: string, compat: Map<number, [Side, Side]>): string {
  let out = '';
  let prevEnd: Side = NONE;
  for (const ch of run) {
    const cp = ch.codePointAt(0)!;
    // A combining mark reads as part of the bracket it follows (after a letter it is just text).
    if (INVISIBLE.test(ch) || DOUBLE_LOOKALIKE.has(cp) || (prevEnd !== NONE && MARK.test(ch))) {
      out += escape(ch);
      prevEnd = NONE;
      continue;
    }
    const side = baseSide(ch);
    const [first, last] = compat.get(cp) ?? [side, side];
    if (first !== NONE && first === prevEnd) out += ' ';
    out += ch;
    prevEnd = last;
  }
  return out;
}

/** Applies the rules above to JSON text (outside strings JSON is ASCII, so only strings change). */
function neutralizeJsonText(text: string): string {
  const { compat, special } = getTables();
  return text.replace(special, (run) => neutralizeRun(run, compat));
}
