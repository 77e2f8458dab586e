import type { Admin, ConfigResourceTypes, Kafka } from 'kafkajs';
import type { Logger } from '../../runtime/logging/index.ts';

// kafkajs's ConfigResourceTypes is a TypeScript enum of a CommonJS module: the values, not an import.
const TOPIC = 2 as ConfigResourceTypes;
const BROKER = 4 as ConfigResourceTypes;
/** Kafka's own default of message.max.bytes (and of the Java client's max.request.size). */
export const KAFKA_DEFAULT_MAX_BYTES = 1_048_588;
const UNKNOWN_TOPIC_RETRY_MS = 30_000;

export interface KafkaLimits {
  /** The largest produce request to `topic`: min(broker message.max.bytes, topic max.message.bytes, the client's limit). */
  limitFor(topic: string): Promise<number>;
}

function numberIn(entries: ReadonlyArray<{ configName: string; configValue: string }> | undefined, name: string): number | null {
  const value = Number(entries?.find((e) => e.configName === name)?.configValue);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * The size limits a producer must keep under, read from the broker with a short-lived admin client
 * (describeConfigs; none stays connected to hold the process open): the brokers' `message.max.bytes` once, each topic's `max.message.bytes` the
 * first time it is sent to (a topic not created yet has the broker's). A lookup that fails falls
 * back to what is known (the broker's or Kafka's default) and is tried again next time: the split
 * on a "too large" refusal covers a limit we could not read.
 */
export function createKafkaLimits(deps: { kafka: Kafka; clientMaxBytes: number; log: Logger }): KafkaLimits {
  let broker: Promise<number | null> | null = null;
  const topics = new Map<string, number>();
  /** Topics whose limit could not be read, until when not to ask again (each ask is a connection). */
  const unknownUntil = new Map<string, number>();
  const withAdmin = async <T>(fn: (a: Admin) => Promise<T>): Promise<T> => {
    const a = deps.kafka.admin({ retry: { retries: 1, initialRetryTime: 300 } });
    await a.connect();
    try {
      return await fn(a);
    } finally {
      await a.disconnect().catch(() => undefined);
    }
  };
  const readBroker = async (): Promise<number | null> => {
    try {
      const res = await withAdmin(async (a) => {
        const cluster = await a.describeCluster();
        return a.describeConfigs({ includeSynonyms: false, resources: cluster.brokers.map((b) => ({ type: BROKER, name: String(b.nodeId), configNames: ['message.max.bytes'] })) });
      });
      const values = res.resources.map((r) => numberIn(r.configEntries, 'message.max.bytes')).filter((v): v is number => v !== null);
      return values.length > 0 ? Math.min(...values) : null;
    } catch (err) {
      deps.log.warn({ err }, "reading the brokers' message.max.bytes failed; using the client's limit until it can be read");
      broker = null;
      return null;
    }
  };
  const readTopic = async (topic: string): Promise<number | null> => {
    try {
      const res = await withAdmin((a) => a.describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC, name: topic, configNames: ['max.message.bytes'] }] }));
      return numberIn(res.resources[0]?.configEntries, 'max.message.bytes');
    } catch {
      // Not created yet (it will be by the first send) or unreachable: the broker's limit for now.
      return null;
    }
  };
  return {
    async limitFor(topic) {
      broker ??= readBroker();
      const brokerMax = await broker;
      let topicMax = topics.get(topic);
      if (topicMax === undefined && (unknownUntil.get(topic) ?? 0) <= Date.now()) {
        const read = await readTopic(topic);
        if (read !== null) topics.set(topic, read);
        else unknownUntil.set(topic, Date.now() + UNKNOWN_TOPIC_RETRY_MS);
        topicMax = read ?? undefined;
      }
      return Math.min(deps.clientMaxBytes, brokerMax ?? KAFKA_DEFAULT_MAX_BYTES, topicMax ?? Infinity);
    },
  };
}
