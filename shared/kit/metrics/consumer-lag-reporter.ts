import type { ConsumerLag } from '../../adapters/bus/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Metrics } from './metrics.ts';

/** What GET /healthz says about one consumer. */
export interface ConsumerLagHealth {
  group: string;
  topic: string;
  total_lag: number;
  behind: boolean;
  partitions: Array<{ partition: number; lag: number; committed_offset: string | null; high_watermark: string }>;
  measured_at: string;
  /** The last measurement failed (the broker is unreachable): the figures are the last known. */
  error: string | null;
}

export interface LagHealth {
  /** "behind" when any consumer is. */
  status: 'ok' | 'behind';
  total_lag: number;
  behind: boolean;
  consumers: ConsumerLagHealth[];
}

export interface ConsumerLagReporterOptions {
  metrics: Metrics;
  log: Logger;
  nowMs: () => number;
  /** A consumer is behind when its total lag is at least this many records. */
  behindRecords: number;
  /** At most one "behind" log line per consumer this often. Default 60 s. */
  logEveryMs?: number;
}

/**
 * Turns the bus's lag measurements into what an operator sees: the gauge
 * `tracecheck_consumer_lag_records{group, topic, partition}`, the detail of GET /healthz, and a
 * warning at most once a minute per consumer while it is behind. One per process, shared by its
 * consumers.
 */
export function createConsumerLagReporter(options: ConsumerLagReporterOptions) {
  const latest = new Map<string, ConsumerLag>();
  const lastLoggedAt = new Map<string, number>();
  const logEveryMs = options.logEveryMs ?? 60_000;
  const log = options.log.child({ component: 'consumer-lag' });
  const keyOf = (lag: Pick<ConsumerLag, 'groupId' | 'topic'>): string => `${lag.groupId}\u0000${lag.topic}`;

  return {
    record(lag: ConsumerLag): void {
      const key = keyOf(lag);
      const previous = latest.get(key);
      latest.set(key, lag);
      const labels = (partition: number) => ({ group: lag.groupId, topic: lag.topic, partition: String(partition) });
      // Partitions that moved to another member are no longer ours to report.
      const now = new Set(lag.partitions.map((p) => p.partition));
      for (const p of previous?.partitions ?? []) if (!now.has(p.partition)) options.metrics.consumerLagRecords.remove(labels(p.partition));
      for (const p of lag.partitions) options.metrics.consumerLagRecords.set(labels(p.partition), p.lag);
      if (lag.totalLag < options.behindRecords) return;
      const at = options.nowMs();
      const last = lastLoggedAt.get(key);
      if (last !== undefined && at - last < logEveryMs) return;
      lastLoggedAt.set(key, at);
      log.warn(
        { group: lag.groupId, topic: lag.topic, totalLag: lag.totalLag, behindRecords: options.behindRecords, partitions: Object.fromEntries(lag.partitions.map((p) => [p.partition, p.lag])) },
        'consumer is behind',
      );
    },
    health(): LagHealth {
      const consumers = [...latest.values()].map((lag): ConsumerLagHealth => ({
        group: lag.groupId,
        topic: lag.topic,
        total_lag: lag.totalLag,
        behind: lag.totalLag >= options.behindRecords,
        partitions: lag.partitions.map((p) => ({ partition: p.partition, lag: p.lag, committed_offset: p.committedOffset, high_watermark: p.highWatermark })),
        measured_at: new Date(lag.measuredAtMs).toISOString(),
        error: lag.error,
      }));
      const behind = consumers.some((c) => c.behind);
      return { status: behind ? 'behind' : 'ok', total_lag: consumers.reduce((s, c) => s + c.total_lag, 0), behind, consumers };
    },
  };
}

export type ConsumerLagReporter = ReturnType<typeof createConsumerLagReporter>;
