// Defaults that both the configuration (an unset variable) and a component (an unset option, as in
// tests) fall back to: written once here, so the two cannot drift apart.

/** A closed trace's quiet wait when every parent is present. */
export const DEFAULT_TRACE_COMPLETE_GRACE_MS = 200;
/** An entry span's trace closes this long after its last record at most. */
export const DEFAULT_TRACE_ENTRY_GRACE_MS = 10_000;
/** Spans kept per trace; past it the unit is flagged truncated. */
export const DEFAULT_MAX_SPANS_PER_TRACE = 10_000;
/** Kafka's default `message.max.bytes` is 1,048,588; leave room for the key and headers. */
export const DEFAULT_MAX_RECORD_BYTES = 1_000_000;
/** Segment files of the embedded bus's log and of the assembler's spill store. */
export const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;
/** Units one scorer scores at once. */
export const DEFAULT_SCORER_CONCURRENCY = 1024;
/**
 * Units (and their bytes) the scorer reads ahead of those it scores (TRACECHECK_SCORER_READ_AHEAD_*),
 * for projects to take turns among: more than the units the assembler's root-less caps let one
 * project flush at once (10,000), so another project's unit behind them is read, and scored next.
 */
export const DEFAULT_SCORER_READ_AHEAD = { units: 20_000, bytes: 128 * 1024 * 1024 } as const;
/** How often a Kafka consumer measures its lag. */
export const DEFAULT_LAG_INTERVAL_MS = 5_000;
/** Caps on the assembler's open traces: in number, in packed record bytes, and without a root. */
export const DEFAULT_OPEN_CAPS = { maxOpenTraces: 50_000, maxOpenBytes: 256 * 1024 * 1024, maxRootlessTraces: 10_000 } as const;
/**
 * A Kafka consumer's session: a member killed with SIGKILL holds its partitions this long (its
 * replacement's join waits for it), so it bounds the recovery after a crash. Heartbeats every tenth.
 */
export const DEFAULT_KAFKA_SESSION_TIMEOUT_MS = 10_000;
/**
 * Each project's share of the assembler's open traces (TRACECHECK_PROJECT_*): in number, without a
 * root, and in packed record bytes. Half the default hold on reading (10,000): one project alone
 * never makes the assembler stop reading everyone's spans.
 */
export const DEFAULT_PROJECT_SHARES = { maxOpenTraces: 5_000, maxRootlessTraces: 2_500, maxOpenBytes: 128 * 1024 * 1024 } as const;
