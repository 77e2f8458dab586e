import { createHmac } from 'node:crypto';

/** Placeholders of one trace: the same value of a kind → the same number, numbered per kind from 1. */
export interface Numbering {
  placeholder(kind: string, value: string): string;
}

/** Distinct values numbered per kind and trace; past it a value gets a fresh number each time (memory stays bounded). */
const MAX_VALUES_PER_KIND = 1000;

function createNumbering(): Numbering {
  const kinds = new Map<string, { next: number; seen: Map<string, number> }>();
  return {
    placeholder(kind, value) {
      let k = kinds.get(kind);
      if (!k) kinds.set(kind, (k = { next: 1, seen: new Map() }));
      let n = k.seen.get(value);
      if (n === undefined) {
        n = k.next++;
        if (k.seen.size < MAX_VALUES_PER_KIND) k.seen.set(value, n);
      }
      return `<${kind}:${n}>`;
    },
  };
}

/**
 * The numberings of the traces seen lately, least recently used dropped first. A trace's spans
 * come in several exports, so its numbering must outlive one export; a trace whose numbering was
 * dropped (or whose spans reach another collector) starts again at 1 — see docs/privacy.md.
 */
export function createTraceNumberings(maxTraces: number): { of(key: string): Numbering } {
  const traces = new Map<string, Numbering>();
  return {
    of(key) {
      let numbering = traces.get(key);
      if (numbering) {
        traces.delete(key);
        traces.set(key, numbering);
        return numbering;
      }
      numbering = createNumbering();
      traces.set(key, numbering);
      if (traces.size > maxTraces) traces.delete(traces.keys().next().value as string);
      return numbering;
    },
  };
}

/**
 * Identifiers (session, conversation and user ids) group units across traces, so a per-trace
 * number would merge every session whose id is an email into one: they get a keyed hash instead,
 * the same in every trace, which cannot be reversed without the key.
 */
export function createPseudonyms(key: string): Numbering {
  return {
    placeholder(kind, value) {
      return `<${kind}:${createHmac('sha256', key).update(kind).update('\0').update(value).digest('hex').slice(0, 16)}>`;
    },
  };
}
