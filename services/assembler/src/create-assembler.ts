import type { Bus, ConsumerLag } from '../../../shared/adapters/bus/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import { SpanEnvelopeSchema, parseRecord, type SpanEnvelope, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createWindowStage, done, type WindowStage } from '../../../shared/kit/stage/index.ts';
import { assembleTraceInSteps, type TraceParts } from './assemble-trace.ts';
import { createPriceTable, type PriceTable } from '../../../shared/engines/pricing/index.ts';
import { defaultTickMs } from './closing-policy.ts';
import { createHeldRecords } from './held-records.ts';
import type { OpenCapsOptions } from './open-caps.ts';
import { createSpillStore, type SpillStoreOptions } from './spill-store.ts';
import { createTraceWindow } from './trace-window.ts';

export interface AssemblerConfig {
  spansTopic: string;
  unitsTopic: string;
  groupId: string;
  /** See ClosingOptions. */
  graceMs: number;
  entryGraceMs?: number;
  completeGraceMs?: number;
  maxOpenMs: number;
  /** See TraceWindowOptions.maxSpansPerTrace. */
  maxSpansPerTrace?: number;
  /**
   * At start, the span records just below the commit read back (at most this many per partition,
   * written within `maxOpenMs` before the first record to handle) and kept as published traces, so
   * a late span re-opens one whole after a restart too (TRACECHECK_TRACE_REPLAY_RECORDS). Unset or 0: none.
   */
  replayRecords?: number;
  /** Reads no more spans while this many traces are open (ready ones not yet published included). Unset: no hold. */
  holdOpenTraces?: number;
  /** How often closed traces are looked for. Default: defaultTickMs. */
  tickMs?: number;
  /** Caps on open traces (see open-caps.ts). Default DEFAULT_OPEN_CAPS. */
  caps?: OpenCapsOptions;
  /** Open and retained traces' records are spilled to disk here (see spill-store.ts). Unset: held in memory (tests). */
  spill?: SpillStoreOptions;
  /** Prices model calls (TRACECHECK_PRICES_FILE over the built-in table). Unset: the built-in table. */
  prices?: PriceTable;
}

export interface AssemblerDeps {
  bus: Bus;
  log: Logger;
  /** Counts the units published, and the traces closed by a cap. */
  metrics?: Metrics;
  /** Receives the spans consumer's lag. */
  onLag?: (lag: ConsumerLag) => void;
  /** Builds a unit from a closed trace. Default assembleTrace, in steps (tests pass one that fails). */
  assemble?: (trace: TraceParts, nowMs: number) => Unit;
  nowMs?: () => number;
}

/**
 * A span envelope record. `parsed`: what the collector's SpanEnvelopeSchema check of the same record
 * gave, handed over by the in-process bus (only the collector sets it on this topic, and a record read
 * back from disk or Kafka has none): taken as is instead of parsing the text a second time.
 */
export function parseSpanEnvelope(value: string, parsed?: unknown): SpanEnvelope {
  if (parsed !== undefined) return parsed as SpanEnvelope;
  return parseRecord(SpanEnvelopeSchema, value, 'a span envelope v1');
}

/**
 * Consumes span envelopes and publishes one unit per trace once its root span has ended and a
 * quiet grace period has passed: a window stage (shared/kit/stage) around the trace window, so a
 * crash re-reads every record of every trace not yet published (at least once; units are
 * idempotent by id downstream). On stop, traces whose root has ended are published at once.
 */
/** The trace assembler; `refused`: the collector of this process refused an export with spans of these traces. */
export type Assembler = WindowStage & { refused(project: string | undefined, traceIds: Iterable<string>): void };

export function createAssembler(config: AssemblerConfig, deps: AssemblerDeps): Assembler {
  const log = deps.log.child({ component: 'assembler' });
  const options = config.prices ? { prices: createPriceTable(config.prices) } : {};
  const spill = config.spill ? createSpillStore(config.spill) : null;
  const window = createTraceWindow({
    ...(spill ? { records: createHeldRecords(spill) } : {}),
    graceMs: config.graceMs,
    maxOpenMs: config.maxOpenMs,
    retainClosedMs: config.maxOpenMs,
    ...(config.entryGraceMs !== undefined ? { entryGraceMs: config.entryGraceMs } : {}),
    ...(config.completeGraceMs !== undefined ? { completeGraceMs: config.completeGraceMs } : {}),
    ...(config.maxSpansPerTrace !== undefined ? { maxSpansPerTrace: config.maxSpansPerTrace } : {}),
    ...config.caps,
  });
  const { assemble } = deps;
  const stage = createWindowStage(
    {
      name: 'assembler',
      in: config.spansTopic,
      out: config.unitsTopic,
      groupId: config.groupId,
      tickMs: config.tickMs ?? defaultTickMs(config.graceMs, config.completeGraceMs),
      flushOnStop: true,
      ...(config.holdOpenTraces !== undefined ? { holdOpenAt: config.holdOpenTraces } : {}),
      ...(config.replayRecords ? { replay: { maxRecords: config.replayRecords, maxAgeMs: config.maxOpenMs } } : {}),
    },
    {
      bus: deps.bus,
      log: deps.log,
      window,
      parse: parseSpanEnvelope,
      build: (trace, nowMs) => (assemble ? done(assemble(trace, nowMs)) : assembleTraceInSteps(trace, nowMs, options)),
      // The unit itself rides along on the in-process bus: its readers check it without parsing the text.
      toMessage: (unit) => ({ key: unit.unit_id, value: JSON.stringify(unit), parsed: unit }),
      outputKind: 'unit',
      // The records as they were parsed (the original text is not kept in memory), with where each
      // was read, under the trace id they were sent with (the window's key also names the project).
      records: (trace) => [...trace.spans, ...trace.logs].map((r) => ({ value: JSON.stringify(r), at: window.positionOf(r), key: trace.traceId })),
      published: (unit, reason) => {
        deps.metrics?.unitsAssembled.inc();
        deps.metrics?.agents.observeUnit(unit);
        if (reason.startsWith('cap-')) deps.metrics?.tracesClosedByCap.inc({ cap: reason.slice(4) });
        log.debug({ traceId: unit.trace_ids[0], reason, spans: unit.span_count }, 'unit published');
      },
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
      ...(spill ? { close: () => spill.close() } : {}),
      ...(deps.nowMs ? { nowMs: deps.nowMs } : {}),
    },
  );
  const nowMs = deps.nowMs ?? Date.now;
  return Object.assign(stage, { refused: (project: string | undefined, traceIds: Iterable<string>) => window.refused(project, traceIds, nowMs()) });
}
