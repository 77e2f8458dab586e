/**
 * Masks the variable parts of an error or explanation text so that two occurrences of one failure
 * read the same: quoted values, URLs, e-mail addresses, ids (UUIDs, hex, tokens mixing letters and
 * digits) and numbers each become a placeholder. Pure and deterministic.
 */

/** Characters of a text looked at; the rest is cut (texts come from hostile traces). */
const MAX_TEXT_CHARS = 2_000;
/** Tokens of a masked text kept. */
const MAX_TOKENS = 64;

const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/"(?:[^"\\\n]|\\.){0,200}"|'(?:[^'\\\n]|\\.){0,200}'|`[^`\n]{0,200}`|“[^”\n]{0,200}”/g, ' <str> '],
  [/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' <url> '],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, ' <email> '],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' <id> '],
  [/\b(?:0x)?[0-9a-f]{8,}\b/gi, ' <id> '],
  [/[-+]?\b\d+(?:\.\d+)?(?:ms|s|m|h|kb|mb|gb|%)(?![\w])/gi, ' <num> '],
  // A token of letters and digits together (order_8812, A1B2, v2.3.1): an id or a version.
  [/\b(?=[\w.-]*\d)(?=[\w.-]*[a-z])[\w.-]*\w\b/gi, ' <id> '],
  [/[-+]?\b\d+(?:[.,]\d+)*(?:e[-+]?\d+)?\b/gi, ' <num> '],
];

/** The masked text's tokens (split on white space, punctuation kept apart from words). */
export function maskTokens(text: string): string[] {
  let masked = text.slice(0, MAX_TEXT_CHARS);
  for (const [pattern, placeholder] of RULES) masked = masked.replace(pattern, placeholder);
  const tokens = masked
    .replace(/([,;:()[\]{}=!?])/g, ' $1 ')
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => t.replace(/[.]+$/, ''));
  return tokens.filter((t) => t.length > 0).slice(0, MAX_TOKENS);
}

export function maskText(text: string): string {
  return maskTokens(text).join(' ');
}
