/** FNV-1a, 32 bits, as 8 hex digits: stable ids from text (not for security). */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** A 64-bit id from two independent FNV passes: collisions among a project's problems are negligible. */
export function stableId(text: string): string {
  return fnv1a(text) + fnv1a(`${text.length}:${text}`);
}
