import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { deadLettersWritten, type TopicHoldings } from '../../adapters/bus/index.ts';
import { createAgentMetrics, type AgentMetrics } from './agent-metrics.ts';

// One registry per process, handed down like the logger: every service records into the metrics
// it is given, and whichever HTTP server the process runs serves them at GET /metrics. Labels have
// bounded cardinality: check names and outcomes, never unit or trace ids.

export interface Metrics {
  readonly registry: Registry;
  spansReceived: Counter;
  spansAccepted: Counter;
  spansRejected: Counter<'reason'>;
  unitsAssembled: Counter;
  /** Traces the assembler closed early because open traces passed a cap (open, bytes, rootless) or a project its share (project-*). */
  tracesClosedByCap: Counter<'cap'>;
  scoresWritten: Counter<'check' | 'status'>;
  /** Units the scorer stored with their scores (the scoring rate of GET /api/v1/pipeline). */
  unitsScored: Counter;
  scoringLagSeconds: Gauge;
  judgeInFlight: Gauge;
  judgeCalls: Counter<'outcome'>;
  judgeRetries: Counter;
  alertDeliveries: Counter<'type' | 'outcome'>;
  deadLetters: Counter<'topic'>;
  /** Scores sent out as evaluation records (TRACECHECK_EXPORT_OTLP_ENDPOINT), by outcome: sent, rejected, failed, dropped. */
  evaluationExportRecords: Counter<'outcome'>;
  evaluationExportRetries: Counter;
  evaluationExportQueued: Gauge;
  consumerLagRecords: Gauge<'group' | 'topic' | 'partition'>;
  busRecordsInMemory: Gauge<'topic'>;
  busRecordsUnread: Gauge<'topic'>;
  busLogBytes: Gauge<'topic'>;
  busLagSeconds: Gauge<'topic'>;
  storeMemoryBytes: Gauge;
  /** Per-agent runs, duration, calls, cost and tool errors, with capped label values (agent-metrics.ts). */
  agents: AgentMetrics;
  /** Where the in-process bus's gauges are read from at each scrape (embedded mode; Kafka has none). */
  observeBus(holdings: () => readonly TopicHoldings[]): void;
  /** Where the store's memory gauge is read from at each scrape (DuckDB in embedded mode). */
  observeStoreMemory(read: () => Promise<number>): void;
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'tracecheck_' });
  const registers = [registry];
  let busHoldings: () => readonly TopicHoldings[] = () => [];
  let storeMemory: (() => Promise<number>) | null = null;
  const busGauge = (name: string, help: string, pick: (h: TopicHoldings) => number): Gauge<'topic'> =>
    new Gauge({
      name,
      help,
      labelNames: ['topic'],
      registers,
      collect() {
        this.reset();
        for (const h of busHoldings()) this.set({ topic: h.topic }, pick(h));
      },
    });
  return {
    registry,
    spansReceived: new Counter({ name: 'tracecheck_spans_received_total', help: 'Spans (and log records) received by the collector', registers }),
    spansAccepted: new Counter({ name: 'tracecheck_spans_accepted_total', help: 'Spans acknowledged by the bus', registers }),
    spansRejected: new Counter({ name: 'tracecheck_spans_rejected_total', help: 'Spans refused, by reason (invalid, too_many, unavailable)', labelNames: ['reason'], registers }),
    unitsAssembled: new Counter({ name: 'tracecheck_units_assembled_total', help: 'Units published by the assembler', registers }),
    tracesClosedByCap: new Counter({ name: 'tracecheck_traces_closed_by_cap_total', help: 'Traces closed before their time because open traces passed a cap (open: their number, bytes: their records, rootless: traces without a root), or one project passed its share of them (project-open, project-bytes, project-rootless)', labelNames: ['cap'], registers }),
    scoresWritten: new Counter({ name: 'tracecheck_scores_written_total', help: 'Scores written to the store, by check and status', labelNames: ['check', 'status'], registers }),
    unitsScored: new Counter({ name: 'tracecheck_units_scored_total', help: 'Units stored with their scores by the scorer', registers }),
    scoringLagSeconds: new Gauge({ name: 'tracecheck_scoring_lag_seconds', help: "How far the scorer trails the agents: from the last scored unit's end to its scores being written", registers }),
    judgeInFlight: new Gauge({ name: 'tracecheck_judge_calls_in_flight', help: 'Judge calls waiting for an answer', registers }),
    judgeCalls: new Counter({ name: 'tracecheck_judge_calls_total', help: 'Judge calls, by outcome (ok, failed)', labelNames: ['outcome'], registers }),
    judgeRetries: new Counter({ name: 'tracecheck_judge_retries_total', help: 'Judge calls retried after a retriable failure (429, 5xx, timeout)', registers }),
    alertDeliveries: new Counter({ name: 'tracecheck_alert_deliveries_total', help: 'Alert notifications, by target type and outcome', labelNames: ['type', 'outcome'], registers }),
    evaluationExportRecords: new Counter({
      name: 'tracecheck_evaluation_export_records_total',
      help: 'Scores sent out as gen_ai.evaluation.result log records, by outcome: sent (taken by the receiver), rejected (refused in its partial success), failed (given up after retries or refused), dropped (the queue was full)',
      labelNames: ['outcome'],
      registers,
    }),
    evaluationExportRetries: new Counter({ name: 'tracecheck_evaluation_export_retries_total', help: 'Exports of evaluation records sent again after a retryable failure', registers }),
    evaluationExportQueued: new Gauge({ name: 'tracecheck_evaluation_export_queued', help: 'Evaluation records waiting to be sent', registers }),
    deadLetters: new Counter({
      name: 'tracecheck_dead_letters_total',
      help: 'Records this process put on a dead-letter topic (<topic>.dlq), by the topic they came from',
      labelNames: ['topic'],
      registers,
      collect() {
        this.reset();
        for (const [topic, n] of deadLettersWritten()) this.inc({ topic }, n);
      },
    }),
    consumerLagRecords: new Gauge({ name: 'tracecheck_consumer_lag_records', help: "Records of a partition not yet committed by the consumer group (high watermark - committed offset), per partition assigned to this process", labelNames: ['group', 'topic', 'partition'], registers }),
    busRecordsInMemory: busGauge('tracecheck_bus_records_in_memory', 'Records the in-process bus holds in memory, per topic (on disk: those a running consumer has not read yet)', (h) => h.inMemory),
    busRecordsUnread: busGauge('tracecheck_bus_records_unread', 'Records of a topic some consumer group has not read yet (the in-process bus refuses sends past 100,000)', (h) => h.unread),
    busLogBytes: busGauge('tracecheck_bus_log_bytes', "Bytes of the in-process bus's log segments on disk, per topic (what some group has not committed, plus up to a segment per partition)", (h) => h.onDiskBytes),
    busLagSeconds: busGauge('tracecheck_bus_lag_seconds', 'How long the oldest record of a topic that a running consumer group has not read yet has waited, the slowest group\'s (the collector answers 429 past TRACECHECK_MAX_LAG_MS)', (h) => h.lagMs / 1000),
    storeMemoryBytes: new Gauge({
      name: 'tracecheck_store_memory_bytes',
      help: "Bytes DuckDB's buffer pool holds in this process (embedded mode; capped by TRACECHECK_DUCKDB_MEMORY_LIMIT)",
      registers,
      async collect() {
        if (!storeMemory) return;
        // A scrape must not fail because the store is busy shutting down: the gauge keeps its last value.
        try {
          this.set(await storeMemory());
        } catch {
          /* keep the last value */
        }
      },
    }),
    agents: createAgentMetrics(registers),
    observeBus(holdings) {
      busHoldings = holdings;
    },
    observeStoreMemory(read) {
      storeMemory = read;
    },
  };
}

/** The text exposition of every metric of the registry. */
export function renderMetrics(metrics: Metrics): Promise<string> {
  return metrics.registry.metrics();
}
