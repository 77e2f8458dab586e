function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** JSON with sorted keys and no undefined members: equal values give equal text (for hashes and comparison). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? 'null';
}

/**
 * JSON text in canonical form, so `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` compare equal (tool-call
 * arguments). Text that is not JSON is compared as itself, trimmed.
 */
export function canonicalJsonText(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text.trim();
  }
}
