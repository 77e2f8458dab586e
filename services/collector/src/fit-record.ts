/** Strings shorter than this are never cut: ids, names and short turns stay exact. */
const MIN_CUT_CHARS = 256;

/** Fields whose strings are identity, not content: never cut. */
const KEEP = new Set(['trace_id', 'span_id', 'parent_span_id', 'kind', 'name', 'role', 'id', 'tool_call_id', 'type', 'family', 'operation', 'event_name', 'time_unix_nano', 'start_time_unix_nano', 'end_time_unix_nano']);

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  length: number;
}

function collectSlots(value: unknown, slots: Slot[], depth: number): void {
  if (depth > 64 || value === null || typeof value !== 'object') return;
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value as Record<string, unknown>);
  for (const [key, v] of entries) {
    if (typeof v === 'string') {
      if (v.length >= MIN_CUT_CHARS && !(typeof key === 'string' && KEEP.has(key))) slots.push({ holder: value as Record<string, unknown>, key, length: v.length });
    } else {
      collectSlots(v, slots, depth + 1);
    }
  }
}

export type FitResult = { ok: true; json: string; cut: boolean } | { ok: false; bytes: number };

/**
 * Serializes a record to at most `maxBytes`. A record over the limit (Kafka refuses messages over
 * `message.max.bytes`, 1 MB by default, and an exporter would retry a refused export forever) has
 * its longest strings halved, each marked, until it fits, and `markTruncated` is called.
 * `{ ok: false }` when even that cannot make it fit.
 */
export function fitRecord(record: object, maxBytes: number, markTruncated: () => void = () => undefined): FitResult {
  let json = JSON.stringify(record);
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most records need no byte count at all.
  if (json.length * 3 <= maxBytes || Buffer.byteLength(json) <= maxBytes) return { ok: true, json, cut: false };
  markTruncated();
  const slots: Slot[] = [];
  collectSlots(record, slots, 0);
  for (let round = 0; round < 64; round++) {
    slots.sort((a, b) => b.length - a.length);
    const longest = slots[0];
    if (!longest || longest.length < MIN_CUT_CHARS) break;
    const text = (longest.holder as Record<string | number, string>)[longest.key];
    const keep = Math.floor(text.length / 2);
    const cut = `${text.slice(0, keep)}…[truncated ${text.length - keep} chars]`;
    (longest.holder as Record<string | number, string>)[longest.key] = cut;
    longest.length = keep;
    json = JSON.stringify(record);
    if (Buffer.byteLength(json) <= maxBytes) return { ok: true, json, cut: true };
  }
  return { ok: false, bytes: Buffer.byteLength(json) };
}
