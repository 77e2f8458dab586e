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

function sortKeys(keys: readonly string[]): string[] {
  const sorted = [...keys].sort();
  if (!sorted.some(isArrayIndex)) return sorted;
  const indices = sorted.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...sorted.filter((k) => !isArrayIndex(k))];
}

/**
 * An object's keys in canonical order, each with its text as the first member (`"k":`) and as a
 * later one (`,"k":`).
 */
interface KeyOrder {
  keys: readonly string[];
  sorted: readonly string[];
  first: readonly string[];
  later: readonly string[];
}

function keyOrder(keys: readonly string[]): KeyOrder {
  const sorted = sortKeys(keys);
  const first = sorted.map((k) => `${quotedKey(k)}:`);
  return { keys, sorted, first, later: first.map((f) => `,${f}`) };
}

/**
 * Orders of key lists seen before. A unit's objects are mostly a few shapes (messages, steps, tool
 * calls), each written for every unit the store hashes: comparing a list with one seen before (keys
 * from Object.keys are the same strings, so mostly identity compares) is cheaper than sorting and
 * quoting it again. By key count and first key, a few orders each (the newest replaces the oldest),
 * short keys only, so keys from hostile traces cannot grow it past its bound nor keep the common
 * shapes out for good.
 */
/** A unit with its step figures has about 40 keys. */
const ORDER_MAX_KEYS = 64;
const ORDERS_PER_SLOT = 4;
const ORDER_SLOTS_LIMIT = 1_024;
const orders = new Map<string, KeyOrder[]>();

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function orderOf(value: object): KeyOrder {
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.length > ORDER_MAX_KEYS) return keyOrder(keys);
  const slotKey = `${keys.length}:${keys[0]}`;
  let slot = orders.get(slotKey);
  if (slot) for (const o of slot) if (sameKeys(o.keys, keys)) return o;
  const order = keyOrder(keys);
  if (!slot && orders.size < ORDER_SLOTS_LIMIT && keys.every((k) => k.length <= QUOTED_KEY_MAX_CHARS)) orders.set(slotKey, (slot = []));
  if (slot) {
    if (slot.length >= ORDERS_PER_SLOT) slot.shift();
    slot.push(order);
  }
  return order;
}

/** `undefined` when the value has no JSON form of its own (undefined, a function, a symbol). */
function write(value: unknown, known: ReadonlyMap<unknown, string> | undefined): string | undefined {
  // Primitives as JSON.stringify writes them (a number's text is its String form; NaN and ±Infinity null).
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return JSON.stringify(value);
  }
  const text = known?.get(value);
  if (text !== undefined) return text;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${write(value[i], known) ?? 'null'}`;
    return `${out}]`;
  }
  const { sorted, first, later } = orderOf(value);
  let out = '{';
  let heads = first;
  for (let i = 0; i < sorted.length; i++) {
    const member = write((value as Record<string, unknown>)[sorted[i]], known);
    if (member === undefined) continue;
    out += heads[i] + member;
    heads = later;
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
