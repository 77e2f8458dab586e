/** FNV-1a over the key's UTF-8 bytes: stable across runs, so a key always lands on one partition. */
export function partitionForKey(key: string, partitions: number): number {
  if (partitions === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
