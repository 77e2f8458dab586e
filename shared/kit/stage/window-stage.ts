import { DEFAULT_BACKOFF, writeDeadLetters, type Bus, type BusMessage, type ConsumerLag, type DeferredWork, type OutgoingMessage } from '../../adapters/bus/index.ts';
import { FatalError } from '../../runtime/errors/index.ts';
import { createTimeSlicer } from '../../runtime/flow/index.ts';
import { createComponent, type Component } from '../../runtime/lifecycle/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { createBatchedIntake } from './batched-intake.ts';
import { guardWindow } from './guarded-window.ts';
import type { GroupRecord, RecordPosition, TakenGroup, Window } from './window.ts';

export interface WindowStageConfig {
  /** The component's name, and its logger's. */
  name: string;
  /** Records are read from here and grouped; outputs are published to `out`. */
  in: string;
  out: string;
  groupId: string;
  /** How often ready groups are looked for. */
  tickMs: number;
  /** On stop, build what `takeReady(now, true)` gives (true), or leave every open group to be read again (false). */
  flushOnStop: boolean;
  /**
   * Reads nothing more while the window holds this many open groups (ready ones not yet published
   * included): the stage then reads at the rate it publishes, and holds no more than this whatever
   * the backlog. Unset: no hold.
   */
  holdOpenAt?: number;
  /**
   * Asks the bus, at start, for the records just below the committed offset (at most `maxRecords`,
   * written at most `maxAgeMs` before the first record to handle) and hands them to the window's
   * `restore` (see Window.restore). Unset, or a window without `restore`: no replay.
   */
  replay?: { maxRecords: number; maxAgeMs: number };
}

export interface WindowStageDeps<R, G, O> {
  bus: Bus;
  log: Logger;
  window: Window<R, G, O>;
  /**
   * A record's value as the window takes it; throws (PermanentError) for one that is not: it is
   * dead-lettered. `parsed`: the producer's own parse of it (BusMessage.parsed), when the bus has it.
   */
  parse: (value: string, parsed?: unknown) => R | Promise<R>;
  /**
   * Completes parsed records in batches before the window takes them (one store query for the
   * records read meanwhile, instead of one each), returning them in the same order; see
   * batched-intake.ts. The window still takes every record in read order. Unset: each record is
   * added as soon as it is parsed.
   */
  resolve?: (records: readonly R[]) => Promise<readonly R[]>;
  /** Pure: a group's output, in steps (a yield between two; the kit decides when to give the event loop a turn). */
  build: (group: G, nowMs: number) => Iterator<void, O>;
  toMessage: (output: O) => OutgoingMessage;
  /** The records of a group that cannot be built, as they are dead-lettered. */
  records: (group: G) => GroupRecord[];
  /** What an output is ("unit"), named when one is too large to ever publish. */
  outputKind?: string;
  /** Called for each output durably published. */
  published?: (output: O, reason: string) => void;
  onLag?: (lag: ConsumerLag) => void;
  /** Frees what the window holds outside the heap (spill files), after the last publish. */
  close?: () => void;
  nowMs?: () => number;
}

export interface WindowStage extends Component {
  openCount(): number;
}

/**
 * Bytes of outputs per send, at most: what a failed send releases to be built again. The bus splits
 * each send into produce requests under the broker's limits itself (shared/adapters/bus/sized-send.ts).
 */
const PUBLISH_BYTES = 4 * 1024 * 1024;
/** Work between two yields to the event loop while groups are read back and built: other requests wait no longer. */
const YIELD_AFTER_MS = 20;
/** Records resolved together (deps.resolve), at most: the bus's default in-flight bound, so a full one is one batch. */
const RESOLVE_BATCH = 256;

/**
 * A grouping stage: consumes records, holds them in a Window until a group is ready, builds each
 * ready group (in slices, so the process keeps answering while a large group or a burst closes),
 * publishes the outputs of a tick together, then confirms or releases each group. A group that
 * cannot be built is dead-lettered record by record. The commit follows commit-guard.ts, so a
 * crash re-reads every record of every group not yet published (at least once; outputs must be
 * idempotent by key downstream).
 */
export function createWindowStage<R, G, O>(config: WindowStageConfig, deps: WindowStageDeps<R, G, O>): WindowStage {
  const log = deps.log.child({ component: config.name });
  const now = deps.nowMs ?? Date.now;
  const window = guardWindow(deps.window);
  const producer = deps.bus.createProducer();
  const intake = deps.resolve
    ? createBatchedIntake<R>({ resolve: deps.resolve, add: (record, at) => void window.add(record, at, now()), maxBatch: RESOLVE_BATCH, backoff: DEFAULT_BACKOFF, log })
    : null;

  const consumer = deps.bus.createConsumer({
    topic: config.in,
    groupId: config.groupId,
    // A throw (a bad record) sends the record to the dead-letter topic, or retries a retriable one.
    handle: async (message): Promise<void | DeferredWork> => {
      const record = await deps.parse(message.value, message.parsed);
      const at = { partition: message.partition, offset: BigInt(message.offset) };
      // Batched: the bus holds the record uncommitted until it is in the window (DeferredWork).
      if (intake) return intake.enqueue(record, at);
      window.add(record, at, now());
    },
    committableOffset: (partition, lastHandled) => window.committable(partition, lastHandled),
    ...(config.holdOpenAt !== undefined ? { holdReading: () => window.openCount() >= config.holdOpenAt! } : {}),
    ...(deps.onLag ? { onLag: deps.onLag } : {}),
    ...(config.replay && config.replay.maxRecords > 0 && window.restore ? { replay: { ...config.replay, take: (messages: readonly BusMessage[]) => restore(messages) } } : {}),
  });

  /** Replayed records into the window; one that does not parse was dead-lettered when it was handled. */
  async function restore(messages: readonly BusMessage[]): Promise<void> {
    const records: R[] = [];
    const at: RecordPosition[] = [];
    for (const message of messages) {
      try {
        records.push(await deps.parse(message.value, message.parsed));
        at.push({ partition: message.partition, offset: BigInt(message.offset) });
      } catch {
        continue;
      }
    }
    if (records.length > 0) window.restore?.(records, at, now());
  }

  async function deadLetter(taken: TakenGroup<G>, group: G, err: unknown): Promise<void> {
    log.error({ err, key: taken.key }, 'a group could not be built; its records go to the dead-letter topic');
    const unknown = { topic: config.in, partition: -1, offset: '-1', key: taken.key, headers: {}, timestampMs: now() };
    // Where each record was read, so that it is dead-lettered in the bus's one format; a record
    // kept from before its group re-opened has no position any more.
    const messages = deps.records(group).map(
      ({ value, at, key }): BusMessage => ({ ...unknown, ...(key !== undefined ? { key } : {}), ...(at ? { partition: at.partition, offset: String(at.offset) } : {}), value }),
    );
    try {
      await writeDeadLetters((topic, records) => producer.send(topic, records), messages, err);
      window.confirm(taken.key, now());
    } catch (sendErr) {
      window.release(taken.key);
      log.warn({ err: sendErr, key: taken.key }, 'dead-letter publish failed; will retry');
    }
  }

  type Built = { key: string; reason: string; output: O; message: OutgoingMessage };

  /** Publishes built outputs together (the bus sizes the produce requests), then confirms or releases each. */
  async function publish(batch: readonly Built[]): Promise<void> {
    try {
      await producer.send(
        config.out,
        batch.map((b) => b.message),
        deps.outputKind ? { kind: deps.outputKind } : undefined,
      );
      for (const b of batch) {
        deps.published?.(b.output, b.reason);
        window.confirm(b.key, now(), b.output);
      }
    } catch (err) {
      for (const b of batch) window.release(b.key);
      // A FatalError stops the service (the bus reported it): until then a tick meets it again.
      if (err instanceof FatalError) log.error({ err, outputs: batch.length }, 'publish failed for good; the service stops');
      else log.warn({ err, outputs: batch.length }, 'publish failed; will retry');
    }
  }

  async function publishReady(force: boolean): Promise<void> {
    // Outputs go out every PUBLISH_BYTES as they are built: a tick with thousands of ready groups
    // (a backlog read back) holds a few MB of outputs at a time, not all of them.
    let built: Built[] = [];
    let builtBytes = 0;
    const slicer = createTimeSlicer(YIELD_AFTER_MS);
    for (const taken of window.takeReady(now(), force)) {
      let group: G;
      try {
        let step = taken.load.next();
        for (; !step.done; step = taken.load.next()) await slicer.pause();
        group = step.value;
      } catch (err) {
        window.release(taken.key);
        log.error({ err, key: taken.key }, 'a group could not be read back; will retry');
        continue;
      }
      try {
        const steps = deps.build(group, now());
        let step = steps.next();
        for (; !step.done; step = steps.next()) await slicer.pause();
        const message = deps.toMessage(step.value);
        built.push({ key: taken.key, reason: taken.reason, output: step.value, message });
        builtBytes += message.value.length;
      } catch (err) {
        // A group that cannot be built never will be: retrying would hold the commit for ever.
        await deadLetter(taken, group, err);
      }
      if (builtBytes >= PUBLISH_BYTES) {
        await publish(built);
        built = [];
        builtBytes = 0;
      }
      await slicer.pause();
    }
    if (built.length > 0) await publish(built);
  }

  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> = Promise.resolve();
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
      .catch((err: unknown) => log.error({ err }, 'publishing ready groups failed; the next tick tries again'))
      .finally(() => (busy = false));
  };

  return {
    ...createComponent(config.name, {
      start: async () => {
        await deps.bus.ensureTopics([config.in, config.out]);
        await producer.start();
        await consumer.start();
        timer = setInterval(tick, config.tickMs);
        log.info({ in: config.in, out: config.out }, 'stage started');
      },
      stop: async () => {
        if (timer) clearInterval(timer);
        // What is read but not yet in the window stays uncommitted, to be read again.
        intake?.stop();
        await consumer.shutdown();
        await ticking;
        // Ready groups are published now rather than read again after a restart.
        if (config.flushOnStop) await publishReady(true);
        await producer.shutdown();
        deps.close?.();
      },
    }),
    openCount: () => window.openCount(),
  };
}

