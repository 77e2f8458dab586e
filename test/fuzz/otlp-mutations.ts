import fc from 'fast-check';
import { JSON_ONLY_TIMES, deepDepth, oddJsonNumber } from './otlp-hostile-values.ts';

// Mutations of generated OTLP exports: a JSON request's slots replaced, deleted, nested or sent
// twice, and an encoded protobuf request's bytes flipped, inserted or cut.

type Json = Record<string, unknown> | unknown[];

/**
 * One change to a JSON request: a slot (by index over all slots) replaced, deleted, made odd,
 * nested `depth` levels deeper, or (in an array) sent twice; or one of the numeric fields
 * (timestamps, enums, counts: by index over those) replaced by a hostile value.
 */
export interface JsonMutation {
  at: number;
  kind: 'replace' | 'delete' | 'number' | 'string' | 'nest' | 'duplicate' | 'numeric-field';
  value: unknown;
  depth: number;
}

const NUMERIC_FIELD = /UnixNano$|^kind$|^code$|^droppedAttributesCount$/;

export const jsonMutation: fc.Arbitrary<JsonMutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'delete', 'number', 'string', 'nest', 'duplicate', 'numeric-field'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    oddJsonNumber,
    fc.constantFrom(...JSON_ONLY_TIMES, '9223372036854775807', '18446744073709551615', '-1', '1e400', 'NaN', 'Infinity', '0x10', '', 'ZZZZ', 'SPAN_KIND_SERVER', 'STATUS_CODE_ERROR', 0, 2 ** 32 - 1),
  ),
  depth: fc.oneof(fc.integer({ min: 1, max: 4 }), deepDepth),
});

function slots(root: Json): Array<[Json, string | number]> {
  const out: Array<[Json, string | number]> = [];
  const visit = (node: Json): void => {
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      out.push([node, k]);
      if (typeof v === 'object' && v !== null) visit(v as Json);
    }
  };
  visit(root);
  return out;
}

/** Applies mutations in place. */
export function mutateJson(request: Record<string, unknown>, mutations: readonly JsonMutation[]): Record<string, unknown> {
  for (const m of mutations) {
    let all = slots(request);
    if (m.kind === 'numeric-field') all = all.filter(([, key]) => typeof key === 'string' && NUMERIC_FIELD.test(key));
    if (all.length === 0) continue;
    const [node, key] = all[m.at % all.length];
    const rec = node as Record<string | number, unknown>;
    switch (m.kind) {
      case 'replace':
      case 'numeric-field':
        rec[key] = m.value;
        break;
      case 'delete':
        if (Array.isArray(node)) node.splice(key as number, 1);
        else delete rec[key];
        break;
      case 'number':
        rec[key] = typeof m.value === 'number' ? m.value : 1e308;
        break;
      case 'string':
        rec[key] = typeof m.value === 'string' ? m.value : JSON.stringify(m.value);
        break;
      case 'nest': {
        let v: unknown = rec[key];
        for (let d = 0; d < m.depth; d++) v = d % 2 === 0 ? { kvlistValue: { values: [{ key: 'k', value: v }] } } : { arrayValue: { values: [v] } };
        rec[key] = v;
        break;
      }
      case 'duplicate':
        if (Array.isArray(node)) node.splice(key as number, 0, structuredClone(node[key as number]));
        break;
    }
  }
  return request;
}

/** Byte-level damage to an encoded protobuf request. */
export interface ByteMutation {
  flips: Array<{ at: number; xor: number }>;
  truncateAt: number | null;
  insert: { at: number; bytes: Uint8Array } | null;
}

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.record({
  flips: fc.array(fc.record({ at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }), { maxLength: 4 }),
  truncateAt: fc.option(fc.nat(), { nil: null }),
  insert: fc.option(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }), { nil: null }),
});

export function mutateBytes(body: Uint8Array, m: ByteMutation): Uint8Array {
  let out = Buffer.from(body);
  if (out.length === 0) return out;
  for (const f of m.flips) out[f.at % out.length] ^= f.xor;
  if (m.insert) {
    const at = m.insert.at % (out.length + 1);
    out = Buffer.concat([out.subarray(0, at), m.insert.bytes, out.subarray(at)]);
  }
  if (m.truncateAt !== null) out = out.subarray(0, m.truncateAt % (out.length + 1));
  return out;
}
