/**
 * The offset to commit after a record was handled, in Kafka's convention: a committed offset is
 * the NEXT offset to read, so handling offset 41 commits 42. `committable` is what the handler
 * allows (null: nothing new); a commit never passes the last handled record and never moves
 * back. Returns null when nothing should be committed.
 */
export function nextCommitOffset(lastHandled: string, committable: string | null, committed: string | null): string | null {
  if (committable === null) return null;
  const handled = BigInt(lastHandled);
  const allowed = BigInt(committable);
  const next = (allowed < handled ? allowed : handled) + 1n;
  if (next < 0n) return null;
  if (committed !== null && next <= BigInt(committed)) return null;
  return next.toString();
}

/**
 * What a consumer that holds records in memory may commit: everything handled when it holds none
 * (`lowWaterMark` null), else only below the oldest record it still needs.
 */
export function committableBelow(lowWaterMark: bigint | null, lastHandled: string): string | null {
  if (lowWaterMark === null) return lastHandled;
  return lowWaterMark > 0n ? String(lowWaterMark - 1n) : null;
}
