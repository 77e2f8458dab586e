// Counts repeated fields of a protobuf message by walking its tags, without decoding anything:
// the protobuf decoder measures a span (or log record, or nested array/kvlist) this way before
// protobufjs builds an object for each of its values. Bytes that are not valid protobuf end the
// count early; protobufjs then meets the same bytes and reports them as it always has.

/** Reads a varint at `pos`; [value, next position], or null past `end` or past 10 bytes. */
function varint(buf: Uint8Array, pos: number, end: number): [number, number] | null {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) return null;
    const b = buf[pos++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, pos];
    scale *= 128;
  }
  return null;
}

/**
 * Walks the fields of the message in buf[start, end), calling `visit(field, from, to)` for each
 * length-delimited one; the position after the last field read (`end` when all were read).
 */
function walk(buf: Uint8Array, start: number, end: number, visit: (field: number, from: number, to: number) => void): number {
  let pos = start;
  let groups = 0;
  while (pos < end) {
    const tag = varint(buf, pos, end);
    if (!tag) return pos;
    const field = Math.floor(tag[0] / 8);
    const wire = tag[0] % 8;
    let next = tag[1];
    if (wire === 0) {
      const v = varint(buf, next, end);
      if (!v) return pos;
      next = v[1];
    } else if (wire === 1) next += 8;
    else if (wire === 5) next += 4;
    else if (wire === 2) {
      const len = varint(buf, next, end);
      if (!len || len[1] + len[0] > end) return pos;
      next = len[1] + len[0];
      if (groups === 0) visit(field, len[1], next);
    } else if (wire === 3) groups++;
    else if (wire === 4) {
      if (groups === 0) return pos;
      groups--;
    } else return pos;
    if (next > end) return pos;
    pos = next;
  }
  return pos;
}

/** How many times length-delimited `field` occurs at the top level of the message in buf[start, end). */
export function countField(buf: Uint8Array, start: number, end: number, field: number): number {
  let n = 0;
  walk(buf, start, end, (f) => {
    if (f === field) n++;
  });
  return n;
}

/**
 * The values of a Span (fields of opentelemetry.proto.trace.v1.Span) that are decoded one by one:
 * attributes (9), events (11) and their attributes (Event 3), links (13) and their attributes
 * (Link 4). Nested array and kvlist entries are counted when they are reached.
 */
export function countSpanValues(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  walk(buf, start, end, (field, from, to) => {
    if (field === 9) n++;
    else if (field === 11) n += 1 + countField(buf, from, to, 3);
    else if (field === 13) n += 1 + countField(buf, from, to, 4);
  });
  return n;
}

/** The attributes (field 6) of a LogRecord. */
export function countLogRecordValues(buf: Uint8Array, start: number, end: number): number {
  return countField(buf, start, end, 6);
}

/** The last occurrence of each length-delimited `fields` entry (as protobuf reads a singular field), as raw bytes. */
export function bytesFields(buf: Uint8Array, start: number, end: number, fields: readonly number[]): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  walk(buf, start, end, (field, from, to) => {
    if (fields.includes(field)) out.set(field, buf.subarray(from, to));
  });
  return out;
}
