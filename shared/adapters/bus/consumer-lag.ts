/** How far one partition's committed position trails the end of its log. */
interface PartitionLag {
  partition: number;
  /** The group's committed offset (the next record it will read), or null when it committed none. */
  committedOffset: string | null;
  /** The offset the next produced record will get (Kafka's high watermark). */
  highWatermark: string;
  /** Records not yet durably handled by the group: highWatermark − committed (− the log start when nothing is committed). */
  lag: number;
}

/** One consumer's lag on the partitions assigned to it, as last measured. */
export interface ConsumerLag {
  topic: string;
  groupId: string;
  partitions: PartitionLag[];
  totalLag: number;
  measuredAtMs: number;
  /** Why the last measurement failed (broker unreachable); the partitions are then the last known. */
  error: string | null;
}

export interface TopicOffsets {
  partition: number;
  /** First offset still in the log. */
  low: string;
  high: string;
}

/**
 * Lag of the `assigned` partitions from the topic's watermarks and the group's committed offsets
 * (Kafka answers -1 for a partition the group never committed: everything still in the log counts).
 * Pure, so that the arithmetic is tested without a broker.
 */
export function computeConsumerLag(
  input: { topic: string; groupId: string; assigned: readonly number[]; topicOffsets: readonly TopicOffsets[]; committed: ReadonlyMap<number, string>; nowMs: number },
): ConsumerLag {
  const byPartition = new Map(input.topicOffsets.map((o) => [o.partition, o]));
  const partitions: PartitionLag[] = [];
  for (const partition of [...input.assigned].sort((a, b) => a - b)) {
    const offsets = byPartition.get(partition);
    if (!offsets) continue;
    const high = BigInt(offsets.high);
    const raw = input.committed.get(partition);
    const committed = raw !== undefined && BigInt(raw) >= 0n ? BigInt(raw) : null;
    // A committed offset below the log start (retention removed records) counts from the start.
    const low = BigInt(offsets.low);
    const from = committed === null || committed < low ? low : committed;
    const lag = high > from ? Number(high - from) : 0;
    partitions.push({ partition, committedOffset: committed === null ? null : committed.toString(), highWatermark: offsets.high, lag });
  }
  return {
    topic: input.topic,
    groupId: input.groupId,
    partitions,
    totalLag: partitions.reduce((sum, p) => sum + p.lag, 0),
    measuredAtMs: input.nowMs,
    error: null,
  };
}
