import type { Kafka } from 'kafkajs';
import type { Logger } from '../../runtime/logging/index.ts';
import { computeConsumerLag, type ConsumerLag } from './consumer-lag.ts';
import { toBusError } from './kafka-errors.ts';

/**
 * Measures a consumer's lag every `intervalMs` through an admin client of its own: the topic's
 * watermarks against the group's committed offsets, on the partitions assigned to this member (so
 * the members' figures add up to the group's). A failed measurement reports the last known
 * partitions with the error; measurements never overlap.
 */
export function createLagMonitor(deps: { kafka: Kafka; topic: string; groupId: string; assigned: () => readonly number[]; onLag: (lag: ConsumerLag) => void; intervalMs: number; log: Logger }) {
  // Few retries: a broker that is down shows as an error in the next report, not after minutes.
  const admin = deps.kafka.admin({ retry: { retries: 1, initialRetryTime: 300 } });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let connected = false;
  let last: ConsumerLag | null = null;
  const measure = async (): Promise<void> => {
    try {
      if (!connected) {
        await admin.connect();
        connected = true;
      }
      const [topicOffsets, groupOffsets] = await Promise.all([admin.fetchTopicOffsets(deps.topic), admin.fetchOffsets({ groupId: deps.groupId, topics: [deps.topic] })]);
      const committed = new Map((groupOffsets.find((t) => t.topic === deps.topic)?.partitions ?? []).map((p) => [p.partition, p.offset]));
      last = computeConsumerLag({ topic: deps.topic, groupId: deps.groupId, assigned: deps.assigned(), topicOffsets, committed, nowMs: Date.now() });
      deps.onLag(last);
    } catch (err) {
      deps.log.debug({ err }, 'measuring consumer lag failed');
      const error = toBusError(err, `measuring the lag of group ${deps.groupId} on ${deps.topic}`).message;
      deps.onLag({ ...(last ?? { topic: deps.topic, groupId: deps.groupId, partitions: [], totalLag: 0 }), measuredAtMs: Date.now(), error });
    }
  };
  return {
    start(): void {
      const tick = (): void => {
        running ??= measure().finally(() => (running = null));
      };
      tick();
      timer = setInterval(tick, deps.intervalMs);
      timer.unref();
    },
    async shutdown(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
      if (connected) await admin.disconnect().catch(() => undefined);
    },
  };
}
