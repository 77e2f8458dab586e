import type { Component } from '../../runtime/lifecycle/index.ts';
import type { ConsumerLag } from './consumer-lag.ts';

/** The pipeline's topics; `sessions` holds trace units re-keyed by conversation for the session assembler. */
export type TopicNames = Record<'spans' | 'units' | 'scores' | 'sessions', string>;

/**
 * Topic names under a prefix (TRACECHECK_KAFKA_PREFIX, default `tracecheck`: `tracecheck.spans`,
 * `tracecheck.units`, `tracecheck.scores`, `tracecheck.session-traces`). Tests pass their own names.
 */
export function topicsFor(prefix: string): TopicNames {
  return { spans: `${prefix}.spans`, units: `${prefix}.units`, scores: `${prefix}.scores`, sessions: `${prefix}.session-traces` };
}

export interface OutgoingMessage {
  key: string;
  value: string;
  headers?: Record<string, string>;
  /**
   * `value` as the schema its consumers read it with gives it, when the producer has it at hand (it
   * validated the record with that schema). Only the in-process bus carries it, in memory, to its
   * consumers (never to disk or Kafka): they skip parsing `value` again. Never mutated by either side.
   */
  parsed?: unknown;
}

export interface BusMessage {
  topic: string;
  partition: number;
  /** Decimal string, as Kafka offsets exceed 2^53 in principle. */
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
  timestampMs: number;
  /** OutgoingMessage.parsed, on the in-process bus while the record is read from memory (not from its log on disk). */
  parsed?: unknown;
}

/**
 * Backpressure, the bus's one rule in both modes: sends to `topic` are refused (BusFullError, which
 * the collector answers 429 + Retry-After) while its readers have more than `maxRecords` records
 * of it not yet read. Kafka: the records `groups` have not committed, read from the broker on an
 * interval; the in-process bus: what any reading group has not read, at every send.
 */
export interface BacklogBound {
  topic: string;
  groups: readonly string[];
  maxRecords: number;
}

export interface ProducerOptions {
  refuseWhenBehind?: BacklogBound;
}

export interface SendOptions {
  /** What the records are ("unit"), named in the reason when one is too large to ever send. */
  kind?: string;
}

/**
 * Sends records. `send` resolves only when the bus has durably accepted them (Kafka: acks=all).
 * Kafka: records go in produce requests sized by bytes under the broker's, the topic's and the
 * client's limits; a record that can never fit is dead-lettered to `<topic>.dlq` (value cut, with
 * the reason) instead of refusing the whole send (see sized-send.ts).
 */
export interface Producer extends Component {
  send(topic: string, messages: readonly OutgoingMessage[], options?: SendOptions): Promise<void>;
  /**
   * The largest record, key, value and headers together (UTF-8 bytes), that can ever be sent to
   * `topic` (Kafka: under the broker's, the topic's and the client's limits, read from the broker).
   * A sender that must refuse what cannot fit before acknowledging it (the collector) asks at start.
   * Unset: no limit of the bus's own.
   */
  maxRecordBytes?(topic: string): Promise<number>;
}

/**
 * Work a handler leaves to finish after it returned (the scorer judges many units at once). The bus
 * runs it at once, retries a retriable failure with its backoff, dead-letters a permanent one in
 * its one format (retrying that send until it lands), and commits a partition only below its
 * oldest record whose work is neither done nor dead-lettered. On shutdown, work in hand is awaited,
 * retry waits end, and what is unfinished stays uncommitted, to be read again.
 */
export interface DeferredWork {
  /** One attempt; called again on a retriable failure. */
  run(): Promise<void>;
  /** Called once when the bus is done with the record: finished, dead-lettered, or left uncommitted on shutdown. */
  settled?(): void;
}

export interface ConsumerOptions {
  topic: string;
  groupId: string;
  /** Where a group with no committed offset starts. Default true: a new group reads everything. */
  fromBeginning?: boolean;
  /**
   * Handles one record; records of a partition arrive in offset order, one at a time.
   * Throwing a PermanentError (or a non-retriable error) sends the record to `<topic>.dlq`
   * with the error and moves on; a retriable error is retried with backoff and never skipped.
   * Returning DeferredWork hands the rest of the record to the bus (see there) and frees the
   * handler for the next record.
   */
  handle(message: BusMessage): Promise<void | DeferredWork>;
  /**
   * Records whose DeferredWork may be unfinished at once; while that many are, the consumer takes
   * no new record (backpressure: Kafka fetches nothing more). Default 256.
   */
  maxInFlight?: number;
  /**
   * The same bound in bytes (the records' values' characters): past it the consumer takes no new
   * record until some work finishes; one record is always taken. Unset: no bound but maxInFlight.
   */
  maxInFlightBytes?: number;
  /**
   * Asked before each record: while it answers true the consumer takes no new record (Kafka: the
   * fetch waits, heartbeats go on) and commits what it may. The assembler holds reading while it
   * holds its bound of open traces, so its memory is bounded by what it holds, whatever the backlog.
   */
  holdReading?: () => boolean;
  /**
   * The highest offset that may be committed for a partition, given the last handled one; null
   * commits nothing new. Default: the last handled offset. The assembler returns its low-water
   * mark so records of open traces are read again after a crash.
   */
  committableOffset?(partition: number, lastHandledOffset: string): string | null;
  /**
   * Called with this consumer's lag on its assigned partitions (high watermark − committed offset),
   * measured every few seconds while it runs (Kafka; the in-process bus reports none).
   */
  onLag?(lag: ConsumerLag): void;
  /**
   * History handed over when the consumer gets a partition (start, or a Kafka rebalance): before
   * the first record at the committed offset C is handled, `take` gets the records of that
   * partition just below C, in offset order and in chunks. See ReplayOptions.
   */
  replay?: ReplayOptions;
}

/**
 * Records a consumer already handled before it (re)started, handed back as history: the assembler
 * remembers the traces it published before a restart from them. The records are at most
 * `maxRecords` below C and written at most `maxAgeMs` before the record at C (by record timestamp),
 * and never more than the bus still holds: Kafka keeps them by its retention, the in-process bus
 * keeps on disk the segments holding the last `maxRecords` below the group's commit. They are
 * never handled again, never committed, never dead-lettered, and do not count as unread
 * (backpressure). A replay that fails (the log cannot be read back, the broker cannot say where
 * to start) is logged and left out: no record is lost or skipped for it. `take` may be called again
 * with the same records after a rebalance.
 */
export interface ReplayOptions {
  maxRecords: number;
  maxAgeMs: number;
  take(messages: readonly BusMessage[]): void | Promise<void>;
}

export type Consumer = Component;

/** Kafka or the in-process bus: same contract, chosen by configuration. */
export interface Bus {
  readonly kind: 'kafka' | 'memory';
  createProducer(options?: ProducerOptions): Producer;
  createConsumer(options: ConsumerOptions): Consumer;
  /** Creates topics that do not exist yet (no-op for the in-process bus). */
  ensureTopics(topics: readonly string[]): Promise<void>;
}
