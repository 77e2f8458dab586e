import type { BusMessage, ReplayOptions } from './contract.ts';
import type { Partition } from './memory-topics.ts';

/** About how much of the log a replay reads back from disk, and hands to `take`, at a time. */
const DISK_CHUNK_BYTES = 1024 * 1024;
/** Records handed to `take` at a time from memory. */
const MEMORY_CHUNK = 1_000;

/**
 * The in-process bus's replay (ConsumerOptions.replay) of one partition: the records below `at`,
 * the first offset the consumer handles (at most `maxRecords` of them, written at most `maxAgeMs`
 * before `atTimestampMs`), handed to `take` oldest first, in chunks. A durable bus reads them from
 * its log (it keeps the segments holding them, see memory-topics.ts), the other from memory (it
 * keeps them there). Returns how many were handed over; throws when the log cannot be read back.
 */
export async function replayPartition(part: Partition, topic: string, partition: number, at: number, atTimestampMs: number, replay: ReplayOptions): Promise<number> {
  const held = part.log ? part.log.firstOffset() : part.records.base;
  const from = Math.max(at - replay.maxRecords, held, 0);
  const oldest = atTimestampMs - replay.maxAgeMs;
  let taken = 0;
  const hand = async (chunk: BusMessage[]): Promise<void> => {
    const recent = chunk.filter((m) => m.timestampMs >= oldest);
    if (recent.length === 0) return;
    await replay.take(recent);
    taken += recent.length;
  };
  if (part.log) {
    const reader = part.log.openReader(from);
    try {
      while (reader.position() < at) {
        const start = reader.position();
        const read = await reader.read(at, DISK_CHUNK_BYTES);
        if (read.length === 0) break;
        await hand(read.map((r, i): BusMessage => ({ topic, partition, offset: String(start + i), ...r })));
      }
    } finally {
      await reader.close();
    }
    return taken;
  }
  for (let first = from; first < at; first += MEMORY_CHUNK) {
    const chunk: BusMessage[] = [];
    // Trimmed meanwhile (another consumer's send): what is gone is left out.
    for (let offset = Math.max(first, part.records.base); offset < Math.min(at, first + MEMORY_CHUNK); offset += 1) chunk.push(part.records.get(offset));
    await hand(chunk);
  }
  return taken;
}
