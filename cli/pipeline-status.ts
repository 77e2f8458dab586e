import { hostname } from 'node:os';
import type { TopicHoldings, TopicNames } from '../shared/adapters/bus/index.ts';
import type { Store } from '../shared/adapters/store/index.ts';
import type { JudgeClient } from '../shared/engines/checks/contract.ts';
import type { ResilientJudge } from '../shared/engines/judge/index.ts';
import { createPipelineStatusReporter, type ConsumerLagReporter, type EvaluationExportStatus, type Metrics, type PipelineStatusReporter, type Stage, type StageBacklog } from '../shared/kit/metrics/index.ts';
import type { Config } from '../shared/runtime/config/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import type { ServiceName } from './pipeline.ts';

// Which topic and group is which stage's backlog, and where the judge's queue is read: the
// process's own measurements (Kafka: its consumers' lag; in process: the bus's unread records).

export interface StatusWiring {
  config: Config;
  store: Store;
  log: Logger;
  services: ReadonlySet<ServiceName>;
  topics: TopicNames;
  groupOf: (name: 'assembler' | 'scorer' | 'sessions') => string;
  lag: ConsumerLagReporter;
  busHoldings: (() => TopicHoldings[]) | null;
  judge: JudgeClient | null;
  metrics: Metrics;
  /** Conversations the process's session aggregator holds open; null without one. */
  openSessions: (() => number) | null;
  /** What the process's evaluation exporter has sent; null without one. */
  evaluationExport: (() => EvaluationExportStatus) | null;
}

const hasStats = (j: JudgeClient | null): j is ResilientJudge => j !== null && typeof (j as Partial<ResilientJudge>).stats === 'function';

export function pipelineStatusReporter(w: StatusWiring): PipelineStatusReporter {
  const { topics } = w;
  const stageOf = (topic: string, group: string | null): Stage | null => {
    // The scorer's evaluation intake reads the spans topic too: only the assembler's lag is its backlog.
    if (topic === topics.spans) return group === null || group === w.groupOf('assembler') ? 'assemble' : null;
    if (topic === topics.sessions) return 'sessions';
    if (topic !== topics.units) return null;
    // In process the units topic's unread records are the slower reader's: the scorer's, as a rule.
    return group === null || group === w.groupOf('scorer') ? 'score' : 'route';
  };
  const stages = (): StageBacklog[] => {
    if (w.busHoldings) {
      return w.busHoldings().flatMap((h) => {
        const stage = stageOf(h.topic, null);
        return stage ? [{ stage, topic: h.topic, group: null, waiting: h.unread, lag_ms: h.lagMs, error: null }] : [];
      });
    }
    return w.lag.health().consumers.flatMap((c) => {
      const stage = stageOf(c.topic, c.group);
      return stage ? [{ stage, topic: c.topic, group: c.group, waiting: c.total_lag, error: c.error }] : [];
    });
  };
  const scores = w.services.has('scorer');
  const judge = w.judge;
  return createPipelineStatusReporter({
    store: w.store,
    instance: `${hostname()}:${process.pid}`,
    services: [...w.services],
    nowMs: Date.now,
    log: w.log,
    sources: {
      stages,
      judge: () => {
        if (!scores || !hasStats(judge)) return null;
        const s = judge.stats();
        return { rate_per_minute: w.config.judgeOps.ratePerMinute, concurrency: w.config.judgeOps.concurrency, in_flight: s.inFlight, waiting: Math.max(0, s.pending - s.inFlight) };
      },
      evaluationExport: () => (w.evaluationExport ? w.evaluationExport() : null),
      openSessions: () => (w.openSessions ? { count: w.openSessions(), idle_ms: w.config.sessionIdleMs } : null),
      unitsScored: async () => (scores ? ((await w.metrics.unitsScored.get()).values[0]?.value ?? 0) : null),
    },
  });
}
