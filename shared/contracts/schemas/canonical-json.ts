// Written straight to text (the units' content hashes are of this text, so it must stay byte for
// byte what `JSON.stringify` of the key-sorted copy gave: canonical-json.test.ts holds that
// reference). Building the sorted copy first cost a third of the store's work per unit.

/**
 * Integer keys come first, ascending, as in any object JSON.stringify writes (the sorted copy was one).
 * The first character is looked at before the pattern: almost no key starts with a digit.
 */
const isArrayIndex = (key: string): boolean => {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4_294_967_295;
};

/**
 * Keys as JSON strings, kept: a unit's keys are mostly the same few dozen in every unit, and each
 * JSON.stringify of one was a new string (the store hashes every unit). Bounded, and only short
 * keys, since keys inside a trace's attributes are the sender's.
 */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_LIMIT = 4_096;
const QUOTED_KEY_MAX_CHARS = 64;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_LIMIT && key.length <= QUOTED_KEY_MAX_CHARS) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function sortedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((k) => !isArrayIndex(k))];
}

/** `undefined` when the value has no JSON form of its own (undefined, a function, a symbol). */
function write(value: unknown, known: ReadonlyMap<unknown, string> | undefined): string | undefined {
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : JSON.stringify(value);
  const text = known?.get(value);
  if (text !== undefined) return text;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${write(value[i], known) ?? 'null'}`;
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const key of sortedKeys(value)) {
    const member = write((value as Record<string, unknown>)[key], known);
    if (member === undefined) continue;
    out += `${first ? '' : ','}${quotedKey(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * JSON with sorted keys and no undefined members: equal values give equal text (for hashes and
 * comparison). `known` holds texts already written of some of the objects inside (by identity), so
 * that a part hashed on its own is not written twice.
 */
export function canonicalJson(value: unknown, known?: ReadonlyMap<unknown, string>): string {
  return write(value, known) ?? 'null';
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
