import { distance } from 'fastest-levenshtein';

/** At most this many names are suggested for a misspelt one. */
const MAX_SUGGESTIONS = 3;

/**
 * The known names closest to `name` by edit distance (ties by name), at most three, and only those
 * a typo could explain: within a third of the longer name's length, and at least 2 edits allowed.
 */
export function closestCheckNames(name: string, known: Iterable<string>): string[] {
  const scored: Array<{ name: string; d: number }> = [];
  for (const candidate of new Set(known)) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d <= Math.max(2, Math.floor(Math.max(name.length, candidate.length) / 3))) scored.push({ name: candidate, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name);
}

const quoted = (names: readonly string[]): string => {
  const q = names.map((n) => `"${n}"`);
  return q.length <= 1 ? q.join('') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
};

/** `unknown check "task_completd"; did you mean "task_completed"?`, or where to find the names when none is close. */
export function unknownCheckMessage(name: string, known: Iterable<string>): string {
  const near = closestCheckNames(name, known);
  return near.length > 0 ? `unknown check "${name}"; did you mean ${quoted(near)}?` : `unknown check "${name}" (GET /api/v1/checks lists the checks)`;
}
