// The scenario of a late span across an assembler restart (docs/guarantees.md, Completeness), over
// a bus the caller opens: part 1 of a trace is published, the assembler goes away and a new one
// starts on the same group (the bus reopened), part 2 of the trace arrives; the latest unit of the
// trace must hold every span. The first assembler is stopped once its unit is out and nothing is
// open: it publishes nothing more on the way out, so it leaves exactly what a SIGKILL would once
// its commit is written (a kill before that only re-reads part 1, published again whole).
import { expect } from 'vitest';
import { createAssembler } from '../../../services/assembler/src/index.ts';
import type { Bus, BusMessage } from '../../../shared/adapters/bus/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createTestSpan } from '../../helpers/span-factory.ts';
import { uniqueName, waitFor } from '../../helpers/infra.ts';

export interface LateSpanRestartOptions {
  /** The bus, opened again for the second assembler (the in-process bus: on the same data dir). */
  open(): Bus;
  /** Called between the two assemblers with the first bus (the in-process bus closes its log). */
  close(bus: Bus): Promise<void>;
  replayRecords: number;
  /** TRACECHECK_TRACE_MAX_OPEN_MS: how long a trace without its root waits, and how far back the replay reaches. Default 120 s. */
  maxOpenMs?: number;
  waitTimeoutMs: number;
  /** Whether `groupId` has committed all of `topic` (Kafka: its commits travel apart from the reads); absent: no wait. */
  committedAll?: (groupId: string, topic: string) => Promise<boolean>;
}

const TRACE = 'c'.repeat(32);
const OTHERS = ['d', 'e', 'f'].map((c) => c.repeat(32));
const ROOT = '1'.repeat(16);
const span = (traceId: string, n: number, parent?: string) =>
  createTestSpan({ trace_id: traceId, span_id: n === 1 ? ROOT : n.toString(16).padStart(16, '0'), ...(parent ? { parent_span_id: parent } : {}) });

/** Runs the scenario; returns the span counts of the trace's units, in the order they were published. */
export async function runLateSpanRestart(options: LateSpanRestartOptions): Promise<number[]> {
  const log = createSilentLogger();
  const topics = { spans: uniqueName('late_spans'), units: uniqueName('late_units') };
  const groupId = uniqueName('g_assembler');
  // One reader group for both runs: the second reads on after what the first read.
  const readerGroup = uniqueName('g_units');
  const config = { spansTopic: topics.spans, unitsTopic: topics.units, groupId, graceMs: 100, completeGraceMs: 50, maxOpenMs: options.maxOpenMs ?? 120_000, tickMs: 50, replayRecords: options.replayRecords };
  const units: Unit[] = [];
  const until = <T>(description: string, condition: () => T | undefined | false): Promise<T> => waitFor(condition, { timeoutMs: options.waitTimeoutMs, intervalMs: 20, description });

  const run = async (bus: Bus, spans: ReturnType<typeof span>[], ready: () => boolean): Promise<() => Promise<void>> => {
    await bus.ensureTopics([topics.spans, topics.units]);
    const assembler = createAssembler(config, { bus, log });
    const reader = bus.createConsumer({ topic: topics.units, groupId: readerGroup, handle: (m: BusMessage) => Promise.resolve(void units.push(JSON.parse(m.value) as Unit)) });
    await assembler.start();
    await reader.start();
    const producer = bus.createProducer();
    await producer.start();
    await producer.send(topics.spans, spans.map((s) => ({ key: s.trace_id, value: JSON.stringify(s) })));
    await producer.shutdown();
    await until('the units', () => ready() || undefined);
    return async () => {
      await assembler.shutdown();
      await reader.shutdown();
    };
  };

  // Part 1: the trace's root and two children, and three other whole traces, published.
  const first = options.open();
  const part1 = [span(TRACE, 2, ROOT), span(TRACE, 3, ROOT), span(TRACE, 1), ...OTHERS.flatMap((id) => [span(id, 2, ROOT), span(id, 1)])];
  const stopFirst = await run(first, part1, () => units.filter((u) => u.trace_ids[0] === TRACE).length === 1 && units.length >= 4);
  expect(units.find((u) => u.trace_ids[0] === TRACE)?.span_count).toBe(3);
  // Stopped once its commit is written, as the scenario says (a stop before it re-reads part 1).
  if (options.committedAll) {
    const committedAll = options.committedAll;
    await waitFor(async () => (await committedAll(groupId, topics.spans)) || undefined, { timeoutMs: options.waitTimeoutMs, intervalMs: 50, description: "the first assembler's commit of part 1" });
  }
  await stopFirst();
  await options.close(first);

  // Part 2: two more children of the trace reach the new assembler (an exporter's retry across the restart).
  const second = options.open();
  const part2 = [span(TRACE, 4, ROOT), span(TRACE, 5, ROOT)];
  const stopSecond = await run(second, part2, () => units.filter((u) => u.trace_ids[0] === TRACE).length >= 2);
  await stopSecond();
  await options.close(second);
  return units.filter((u) => u.trace_ids[0] === TRACE).map((u) => u.span_count);
}
