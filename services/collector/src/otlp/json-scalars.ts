import { show } from './any-value.ts';
import { InvalidItemError } from './types.ts';

// The scalar fields of OTLP/JSON (proto3 JSON mapping), each checked for one span or log record:
// a malformed value throws InvalidItemError, which rejects that item alone.

/** A string field of a span or log record: absent or null is '', anything else but a string rejects the item. */
export function text(v: unknown, field: string): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  throw new InvalidItemError(`${field} ${show(v)} is not a string`);
}

export function hexId(v: unknown): string {
  // Invalid ids are kept (lowercased) and rejected per span by the pipeline; a non-string id is
  // kept as text so that it is rejected too, rather than read as absent (a root span).
  if (typeof v === 'string') return v.toLowerCase();
  if (v === undefined || v === null) return '';
  return show(v);
}

const U64_MAX_TEXT = '18446744073709551615';
const TWO_64 = 2 ** 64;

/** An unsigned 64-bit integer (timestamps) as a decimal string; absent is '0'. */
export function u64(v: unknown, field: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) {
      const digits = v.replace(/^0+(?=\d)/, '');
      if (digits.length < 20 || (digits.length === 20 && digits <= U64_MAX_TEXT)) return digits;
      throw new InvalidItemError(`${field} ${show(v)} is over 2^64-1`);
    }
    if (/^-\d+$/.test(v)) throw new InvalidItemError(`${field} ${show(v)} is negative`);
    throw new InvalidItemError(`${field} ${show(v)} is not a decimal integer`);
  }
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new InvalidItemError(`${field} ${show(v)} is not an integer`);
    if (v < 0) throw new InvalidItemError(`${field} ${show(v)} is negative`);
    if (v >= TWO_64) throw new InvalidItemError(`${field} ${show(v)} is over 2^64-1`);
    return BigInt(v).toString();
  }
  throw new InvalidItemError(`${field} ${show(v)} is not a decimal integer`);
}

/** A uint32 field (droppedAttributesCount); absent is 0. */
export function u32(v: unknown, field: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n >= 0 && n <= 0xffffffff) return n;
  throw new InvalidItemError(`${field} ${show(v)} is not an unsigned 32-bit integer`);
}

// OTLP/JSON requires integer enums; names are accepted too, as a lenient receiver.
export const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
export const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/** A proto3 enum (an int32, so unknown numbers are kept as protobuf keeps them); absent is 0. */
export function enumValue(v: unknown, names: Record<string, number>, field: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'string' && Object.hasOwn(names, v)) return names[v];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff) return n;
  throw new InvalidItemError(`${field} ${show(v)} is not a valid enum value`);
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** intValue: a number when it is exact, else the decimal string (as the protobuf decoder gives it). */
export function i64(v: unknown): number | string {
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63) return v;
  } else if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
    const b = BigInt(v);
    if (b >= I64_MIN && b <= I64_MAX) return b.toString();
  } else if (v === null) {
    return 0;
  }
  throw new InvalidItemError(`intValue ${show(v)} is not a 64-bit integer`);
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** doubleValue: a number, or a string as proto3 JSON allows ("1.5", "NaN", "Infinity", "-Infinity"). */
export function f64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v === 'NaN') return NaN;
    if (v === 'Infinity') return Infinity;
    if (v === '-Infinity') return -Infinity;
    if (DECIMAL.test(v)) return Number(v);
  } else if (v === null) {
    return 0;
  }
  throw new InvalidItemError(`doubleValue ${show(v)} is not a number`);
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** bytesValue: base64 (standard or URL-safe), given back in standard base64 as the protobuf decoder does. */
export function base64(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'string' && BASE64.test(v)) return Buffer.from(v, 'base64').toString('base64');
  throw new InvalidItemError(`bytesValue ${show(v)} is not base64`);
}
