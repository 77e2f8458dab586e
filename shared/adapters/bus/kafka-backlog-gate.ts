import type { Kafka } from 'kafkajs';
import type { Logger } from '../../runtime/logging/index.ts';
import type { BacklogBound } from './contract.ts';
import { BusFullError } from './memory-topics.ts';

/** Records of `topic` that the slowest of `groups` has not committed: the high watermarks less its offsets. */
export function backlogOf(topicOffsets: ReadonlyArray<{ partition: number; high: string; low: string }>, committedByGroup: ReadonlyArray<ReadonlyMap<number, string>>): number {
  let worst = 0;
  for (const committed of committedByGroup) {
    let backlog = 0;
    for (const p of topicOffsets) {
      const c = Number(committed.get(p.partition) ?? '-1');
      // A group that never committed a partition has everything still there to read.
      backlog += Math.max(0, Number(p.high) - (c >= 0 ? c : Number(p.low)));
    }
    worst = Math.max(worst, backlog);
  }
  return worst;
}

/**
 * The Kafka side of the bus's one backpressure rule (the in-process bus applies it to every topic
 * in memory-topics.ts): a send to `bound.topic` is refused with a BusFullError while its reading
 * groups are more than `bound.maxRecords` records behind. The backlog is read from the broker
 * every `intervalMs` (watermarks against the groups' committed offsets) and cached, so a send costs
 * nothing; a failed measurement keeps the last figure.
 */
export function createBacklogGate(deps: { kafka: Kafka; bound: BacklogBound; intervalMs: number; log: Logger }) {
  const { topic, groups, maxRecords } = deps.bound;
  const admin = deps.kafka.admin({ retry: { retries: 1, initialRetryTime: 300 } });
  let connected = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let backlog = 0;
  let wasBehind = false;
  const measure = async (): Promise<void> => {
    try {
      if (!connected) {
        await admin.connect();
        connected = true;
      }
      const [offsets, ...committed] = await Promise.all([admin.fetchTopicOffsets(topic), ...groups.map((groupId) => admin.fetchOffsets({ groupId, topics: [topic] }))]);
      backlog = backlogOf(
        offsets,
        committed.map((g) => new Map((g.find((t) => t.topic === topic)?.partitions ?? []).map((p) => [p.partition, p.offset]))),
      );
      const behind = backlog > maxRecords;
      if (behind !== wasBehind) deps.log.warn({ topic, groups, backlog, maxRecords }, behind ? 'pipeline behind: refusing sends (429) until it catches up' : 'pipeline caught up: accepting sends again');
      wasBehind = behind;
    } catch (err) {
      deps.log.debug({ err, topic }, 'measuring the backlog failed; keeping the last figure');
    }
  };
  return {
    /** Throws a BusFullError when `count` more records would go to a topic whose readers are too far behind. */
    check(sendTopic: string, count: number): void {
      if (sendTopic === topic && backlog + count > maxRecords && backlog > 0) {
        throw new BusFullError(`consumer group(s) ${groups.join(', ')} have ${backlog} records of ${topic} not yet read (limit ${maxRecords}); retry later`);
      }
    },
    async start(): Promise<void> {
      await measure();
      timer = setInterval(() => void (running ??= measure().finally(() => (running = null))), deps.intervalMs);
      timer.unref();
    },
    async shutdown(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
      if (connected) await admin.disconnect().catch(() => undefined);
    },
  };
}
