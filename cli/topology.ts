import type { TopicNames } from '../shared/adapters/bus/index.ts';
import type { ServiceName } from './pipeline.ts';

/** A bus topic, by its key in TopicNames (the names depend on TRACECHECK_KAFKA_PREFIX). */
export type TopicKey = keyof TopicNames;

/** The ends of the flow that are not topics: where spans come from, the store, what the outside sees. */
export type Outside = 'otlp' | 'store' | 'http' | 'notify';

export type Port = TopicKey | Outside;

export interface StageFlow {
  stage: string;
  /** The service that runs the stage: `tracecheck <service>` alone, or `tracecheck up` with all the others. */
  service: ServiceName;
  in: readonly Port[];
  out: readonly Port[];
  /**
   * What the stage looks up beside its input, when a store is configured for it (always in the
   * embedded mode; on Kafka only with ClickHouse): the collector the API keys, the session
   * aggregator a session unit published before a restart, the scorer monitors, your checks and
   * simulation records.
   */
  lookups?: readonly Outside[];
  /** Set when the stage runs only with this store: the scorer's sweep of unscored units only on DuckDB. */
  onlyWith?: 'duckdb';
}

const TOPIC_KEYS: ReadonlySet<string> = new Set<TopicKey>(['spans', 'units', 'sessions', 'scores']);

export function isTopic(port: Port): port is TopicKey {
  return TOPIC_KEYS.has(port);
}

/**
 * What flows where, in the order data flows; the same in both modes (Kafka + ClickHouse, or the
 * in-process bus + DuckDB), where only the adapters differ. The session loop: trace units go back
 * through the session router (re-keyed by conversation) to the session aggregator, whose session
 * units join the trace units on the units topic, where the scorer reads both. Every topic a stage
 * reads also has a dead-letter topic `<topic>.dlq` (the bus's, for records it cannot handle). On
 * DuckDB, a unit stored without its scores (a crash between the two writes) goes back on the units
 * topic at the scorer's start. The API also writes to the store (alert rules, monitors, checks,
 * simulation records), the alerter its rules' state, and the problem miner the problems it finds
 * in the scores (reading failed units' steps from the store).
 * The README's architecture picture is rendered from this (`npm run docs:architecture`).
 */
export const TOPOLOGY: readonly StageFlow[] = [
  { stage: 'collector', service: 'collector', in: ['otlp'], out: ['spans'], lookups: ['store'] },
  { stage: 'trace assembler', service: 'assembler', in: ['spans'], out: ['units'] },
  { stage: 'session router', service: 'assembler', in: ['units'], out: ['sessions'] },
  { stage: 'session aggregator', service: 'assembler', in: ['sessions'], out: ['units'], lookups: ['store'] },
  { stage: 'scorer', service: 'scorer', in: ['units'], out: ['store', 'scores'], lookups: ['store'] },
  // Other tools' evaluation events ride with the spans; written as external scores of their units.
  { stage: 'evaluation intake', service: 'scorer', in: ['spans'], out: ['store', 'scores'], lookups: ['store'] },
  { stage: 'unscored sweep', service: 'scorer', in: ['store'], out: ['units'], onlyWith: 'duckdb' },
  { stage: 'api', service: 'api', in: ['store'], out: ['http'] },
  { stage: 'alerter', service: 'alerter', in: ['store'], out: ['notify'] },
  // Problems: failed units grouped by signature, per project (issue 37); in the alerter's process,
  // one per deployment, because a project's problem book lives in one process.
  { stage: 'problem miner', service: 'alerter', in: ['scores'], out: ['store'], lookups: ['store'] },
];

/** The topics the stages of these services read or write (each once, in the order of the flow): what a process creates at start. */
export function topicsOf(services: ReadonlySet<ServiceName>, topology: readonly StageFlow[] = TOPOLOGY): TopicKey[] {
  const keys = topology.filter((s) => services.has(s.service)).flatMap((s) => [...s.in, ...s.out]).filter(isTopic);
  return [...new Set(keys)];
}
