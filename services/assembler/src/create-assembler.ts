import { committableBelow, writeDeadLetters, type Bus, type BusMessage, type ConsumerLag } from '../../../shared/bus/index.ts';
import { DEFAULT_TRACE_COMPLETE_GRACE_MS } from '../../../shared/config/index.ts';
import { createTimeSlicer } from '../../../shared/flow/index.ts';
import type { Metrics } from '../../../shared/metrics/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { SpanEnvelopeSchema, parseRecord, type Unit } from '../../../shared/schemas/index.ts';
import { assembleTraceInSteps, type TraceParts } from './assemble-trace.ts';
import { createHeldRecords } from './held-records.ts';
import { createSpillStore, type SpillStoreOptions } from './spill-store.ts';
import { createTraceBuffer } from './trace-buffer.ts';

export interface AssemblerOptions {
  bus: Bus;
  spansTopic: string;
  unitsTopic: string;
  groupId: string;
  graceMs: number;
  /** See TraceBufferOptions.entryGraceMs. */
  entryGraceMs?: number;
  /** See TraceBufferOptions.completeGraceMs. */
  completeGraceMs?: number;
  maxOpenMs: number;
  /** See TraceBufferOptions.maxSpansPerTrace. */
  maxSpansPerTrace?: number;
  /** How often closed traces are looked for. Default: defaultTickMs. */
  tickMs?: number;
  log: Logger;
  nowMs?: () => number;
  /** Counts the units published. */
  metrics?: Metrics;
  /** Receives the spans consumer's lag (see ConsumerOptions.onLag). */
  onLag?: (lag: ConsumerLag) => void;
  /** Builds a unit from a closed trace. Default assembleTrace (tests pass one that fails). */
  assemble?: (trace: TraceParts, nowMs: number) => Unit;
  /** Open and retained traces' records are spilled to disk here (see spill-store.ts). Unset: held in memory (tests). */
  spill?: SpillStoreOptions;
}

/** Units per produce request, at most (Kafka's request size stays well below its limits). */
const PUBLISH_BATCH = 500;
/** Work between two yields to the event loop while units are built: other requests wait no longer. */
const YIELD_AFTER_MS = 20;

/**
 * A tenth of the shortest grace, 10–1000 ms (20 ms for the default 200 ms complete-trace grace): a
 * trace waits at most that long after its grace. A tick that finds nothing costs next to nothing
 * (open traces are kept in order of their last record).
 */
export function defaultTickMs(graceMs: number, completeGraceMs: number | undefined): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(graceMs, completeGraceMs ?? DEFAULT_TRACE_COMPLETE_GRACE_MS) / 10)));
}

export function parseSpanEnvelope(message: BusMessage) {
  return parseRecord(SpanEnvelopeSchema, message.value, 'a span envelope v1');
}

/**
 * Consumes span envelopes and publishes one unit per trace once its root span has ended and a
 * quiet grace period has passed. Offsets are committed only below the oldest open trace, so a
 * crash re-reads every record of every trace not yet published (at-least-once; units are
 * idempotent by id downstream).
 */
export function createAssembler(options: AssemblerOptions): Component & { openTraces(): number } {
  const log = options.log.child({ component: 'assembler' });
  const now = options.nowMs ?? Date.now;
  const spill = options.spill ? createSpillStore(options.spill) : null;
  const buffer = createTraceBuffer({
    ...(spill ? { records: createHeldRecords(spill) } : {}),
    graceMs: options.graceMs,
    maxOpenMs: options.maxOpenMs,
    retainClosedMs: options.maxOpenMs,
    ...(options.entryGraceMs !== undefined ? { entryGraceMs: options.entryGraceMs } : {}),
    ...(options.completeGraceMs !== undefined ? { completeGraceMs: options.completeGraceMs } : {}),
    ...(options.maxSpansPerTrace !== undefined ? { maxSpansPerTrace: options.maxSpansPerTrace } : {}),
  });
  const producer = options.bus.createProducer();
  const tickMs = options.tickMs ?? defaultTickMs(options.graceMs, options.completeGraceMs);

  const consumer = options.bus.createConsumer({
    topic: options.spansTopic,
    groupId: options.groupId,
    // A throw inside the executor (a bad record) rejects, which sends the record to the DLQ.
    handle: (message) =>
      new Promise<void>((resolve) => {
        const envelope = parseSpanEnvelope(message);
        buffer.add(envelope, message.partition, BigInt(message.offset), now());
        resolve();
      }),
    committableOffset: (partition, lastHandled) => committableBelow(buffer.lowWaterMark(partition), lastHandled),
    ...(options.onLag ? { onLag: options.onLag } : {}),
  });

  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> = Promise.resolve();

  async function publishReady(force: boolean): Promise<void> {
    const taken = buffer.takeReadyInSteps(now(), force);
    const units: Array<{ trace: TraceParts & { reason: string }; unit: Unit; value: string }> = [];
    // A trace is unpacked and built in steps, and traces ready at once one after another, with
    // yields in between: the collector and the API keep answering while a large trace or a burst closes.
    const slicer = createTimeSlicer(YIELD_AFTER_MS);
    const pause = (): Promise<void> => slicer.pause();
    for (const { traceId, reason, parts } of taken) {
      let loaded: IteratorResult<void, TraceParts>;
      try {
        loaded = parts.next();
        for (; !loaded.done; loaded = parts.next()) await pause();
      } catch (err) {
        // Its records could not be read back (the spill directory): it stays open, offered again.
        buffer.release(traceId);
        log.error({ err, traceId }, 'a trace could not be read back from the spill directory; will retry');
        continue;
      }
      const trace = { ...loaded.value, reason };
      try {
        let unit: Unit;
        if (options.assemble) unit = options.assemble(trace, now());
        else {
          const steps = assembleTraceInSteps(trace, now());
          let step = steps.next();
          for (; !step.done; step = steps.next()) await pause();
          unit = step.value;
        }
        units.push({ trace, unit, value: JSON.stringify(unit) });
      } catch (err) {
        // A trace that cannot be assembled never will be: retrying would hold the commit forever.
        await deadLetter(trace, err);
      }
      await pause();
    }
    // Every unit ready at this tick goes out in one produce (one broker round trip, not one each).
    for (let i = 0; i < units.length; i += PUBLISH_BATCH) {
      const batch = units.slice(i, i + PUBLISH_BATCH);
      try {
        await producer.send(options.unitsTopic, batch.map(({ unit, value }) => ({ key: unit.unit_id, value })));
        for (const { trace, unit } of batch) {
          options.metrics?.unitsAssembled.inc();
          buffer.confirm(trace.traceId, now());
          log.debug({ traceId: trace.traceId, reason: trace.reason, spans: unit.span_count }, 'unit published');
        }
      } catch (err) {
        for (const { trace } of batch) buffer.release(trace.traceId);
        log.warn({ err, units: batch.length }, 'unit publish failed; will retry');
      }
    }
  }

  async function deadLetter(trace: TraceParts, err: unknown): Promise<void> {
    log.error({ err, traceId: trace.traceId }, 'trace could not be assembled; its records go to the dead-letter topic');
    // The value is the record as it was parsed (the original text is not kept in memory).
    const unknownOrigin = { topic: options.spansTopic, partition: -1, offset: '-1', key: trace.traceId, headers: {}, timestampMs: now() };
    // Where each record was read from, so that it is dead-lettered in the bus's one format (origin
    // topic, partition, offset); a record kept from before a re-open has none any more.
    const messages = [...trace.spans, ...trace.logs].map((r): BusMessage => ({ ...unknownOrigin, ...(buffer.originOf(r) ?? {}), value: JSON.stringify(r) }));
    try {
      await writeDeadLetters((topic, records) => producer.send(topic, records), messages, err);
      buffer.confirm(trace.traceId, now());
    } catch (sendErr) {
      buffer.release(trace.traceId);
      log.warn({ err: sendErr, traceId: trace.traceId }, 'dead-letter publish failed; will retry');
    }
  }

  // A tick that comes while the last one still publishes runs once right after it, instead of
  // queueing one publish per tick behind a slow broker.
  let busy = false;
  let again = false;
  const tick = (): void => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    ticking = (async () => {
      do {
        again = false;
        await publishReady(false);
      } while (again);
    })()
      .catch((err: unknown) => log.error({ err }, 'publishing closed traces failed; the next tick tries again'))
      .finally(() => (busy = false));
  };

  return {
    ...createComponent('assembler', {
      start: async () => {
        await options.bus.ensureTopics([options.spansTopic, options.unitsTopic]);
        await producer.start();
        await consumer.start();
        timer = setInterval(tick, tickMs);
        log.info({ spansTopic: options.spansTopic, unitsTopic: options.unitsTopic, graceMs: options.graceMs }, 'assembler started');
      },
      stop: async () => {
        if (timer) clearInterval(timer);
        await consumer.shutdown();
        await ticking;
        // Traces whose root has ended are published now rather than re-read after a restart.
        await publishReady(true);
        await producer.shutdown();
        spill?.close();
      },
    }),
    openTraces: () => buffer.openCount(),
  };
}
