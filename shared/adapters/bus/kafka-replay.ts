import type { Admin, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../runtime/logging/index.ts';
import type { BusMessage, ReplayOptions } from './contract.ts';

/** What to do with a fetched batch: seek (and drop the batch), or hand its first `replayed` records to the replay and handle the rest. */
export type ReplayStep = { seek: string } | { replayed: number };

export interface KafkaReplayDeps {
  kafka: Kafka;
  topic: string;
  replay: ReplayOptions;
  toBusMessage: (partition: number, raw: KafkaMessage) => BusMessage;
  log: Logger;
}

/**
 * The Kafka consumer's replay (ConsumerOptions.replay). On the first batch of a partition after a
 * group join, its first offset is the committed one, C: the replay starts at S = the latest of
 * C − maxRecords, the first offset written at or after (C's timestamp − maxAgeMs), and the log's
 * start. When S < C the consumer seeks back to S and drops the batch; the records below C that
 * follow go to `take`, never to the handler, and are resolved (so the fetch moves on) but never
 * committed; from C on, records are handled as ever. Any failure (the broker cannot say where to
 * start, `take` throws) is logged and the replay left out; never is a record at or past C skipped.
 */
export function createKafkaReplay(deps: KafkaReplayDeps) {
  const { kafka, topic, replay, log } = deps;
  /** Per partition since the last join: replaying up to `until` (C), or done. */
  const state = new Map<number, { until: bigint; failed: boolean } | 'done'>();
  let admin: Admin | null = null;
  let connecting: Promise<Admin> | null = null;

  const adminClient = (): Promise<Admin> => {
    connecting ??= (async () => {
      const a = kafka.admin();
      await a.connect();
      admin = a;
      return a;
    })();
    // A failed connect is tried again at the next replay.
    connecting.catch(() => (connecting = null));
    return connecting;
  };

  /** Where the replay of `partition` starts for the record at `at` (written at `atMs`). */
  const startOf = async (partition: number, at: bigint, atMs: number): Promise<bigint> => {
    const a = await adminClient();
    const [byTime, bounds] = await Promise.all([a.fetchTopicOffsetsByTimestamp(topic, atMs - replay.maxAgeMs), a.fetchTopicOffsets(topic)]);
    const recent = BigInt(byTime.find((p) => p.partition === partition)?.offset ?? String(at));
    const low = BigInt(bounds.find((p) => p.partition === partition)?.low ?? String(at));
    const byCount = at - BigInt(replay.maxRecords);
    return [byCount, recent, low].reduce((max, o) => (o > max ? o : max));
  };

  return {
    /** The group's assignment changed: every partition starts over (it may have been read elsewhere meanwhile). */
    reset: (): void => state.clear(),
    async step(partition: number, messages: readonly KafkaMessage[]): Promise<ReplayStep> {
      const s = state.get(partition);
      if (s === 'done' || messages.length === 0) return { replayed: 0 };
      const first = BigInt(messages[0].offset);
      if (s === undefined) {
        try {
          const start = await startOf(partition, first, Number(messages[0].timestamp));
          if (start < first) {
            state.set(partition, { until: first, failed: false });
            return { seek: String(start) };
          }
        } catch (err) {
          log.warn({ err, partition }, 'could not find where to replay from; going on without a replay');
        }
        state.set(partition, 'done');
        return { replayed: 0 };
      }
      if (first > s.until) {
        // Not where the seek asked (the log's start moved past it): back to C, without a replay.
        log.warn({ partition, at: String(first), until: String(s.until) }, 'the replay could not be read; going on without it');
        state.set(partition, 'done');
        return { seek: String(s.until) };
      }
      let below = 0;
      while (below < messages.length && BigInt(messages[below].offset) < s.until) below += 1;
      if (below > 0 && !s.failed) {
        try {
          await replay.take(messages.slice(0, below).map((raw) => deps.toBusMessage(partition, raw)));
        } catch (err) {
          s.failed = true;
          log.warn({ err, partition }, 'the replay failed; going on without the rest of it');
        }
      }
      if (below < messages.length) state.set(partition, 'done');
      return { replayed: below };
    },
    async shutdown(): Promise<void> {
      await admin?.disconnect().catch((err: unknown) => log.warn({ err }, 'replay admin disconnect failed'));
    },
  };
}
