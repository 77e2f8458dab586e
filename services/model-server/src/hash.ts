import { createHash } from 'node:crypto';

/** A stable JSON form: object keys sorted, so equal requests hash equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function hashHex(value: unknown, length = 24): string {
  return createHash('sha256').update(typeof value === 'string' ? value : canonicalJson(value)).digest('hex').slice(0, length);
}
