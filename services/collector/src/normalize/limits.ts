import type { Attributes } from '../otlp/types.ts';

const encoder = new TextEncoder();

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
function truncateUtf8(s: string, maxBytes: number): string {
  const buf = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(s, buf);
  return s.slice(0, read);
}

function stringOverLimit(s: string, maxBytes: number): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no byte count.
  return s.length * 3 > maxBytes && Buffer.byteLength(s, 'utf8') > maxBytes;
}

/**
 * Enforces the per-attribute value size limit in place. An over-limit string is cut; an
 * over-limit structured value is replaced by its JSON text, cut. Returns true if anything was cut.
 */
export function enforceAttributeLimit(attrs: Attributes, maxBytes: number): boolean {
  let cut = false;
  for (const key in attrs) {
    const v = attrs[key];
    if (typeof v === 'string') {
      if (stringOverLimit(v, maxBytes)) {
        attrs[key] = truncateUtf8(v, maxBytes);
        cut = true;
      }
    } else if (typeof v === 'object' && v !== null) {
      const text = JSON.stringify(v);
      if (stringOverLimit(text, maxBytes)) {
        attrs[key] = truncateUtf8(text, maxBytes);
        cut = true;
      }
    }
  }
  return cut;
}
