import { distance } from 'fastest-levenshtein';

/**
 * Levenshtein distance counted in code points, as Python's `len` and string indexing count (an emoji
 * is one edit, not two UTF-16 units). The distance depends only on which characters are equal, so
 * each distinct code point is renamed to one UTF-16 unit and the fast UTF-16 implementation does the
 * work; past 65,536 distinct code points (no real text) a plain dynamic programme does.
 */
export function codePointDistance(a: string, b: string, maxNames = 0x10000): number {
  const names = new Map<number, string>();
  const rename = (text: string): string | null => {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      let unit = names.get(cp);
      if (unit === undefined) {
        if (names.size >= maxNames) return null;
        unit = String.fromCharCode(names.size);
        names.set(cp, unit);
      }
      out += unit;
    }
    return out;
  };
  const ra = rename(a);
  const rb = ra === null ? null : rename(b);
  if (ra !== null && rb !== null) return distance(ra, rb);
  return plainDistance(Array.from(a), Array.from(b));
}

function plainDistance(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length];
}

/** Python's `len`: code points. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
