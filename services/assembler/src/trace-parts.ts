import type { LogRecordEnvelope, SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import type { RecordPosition } from '../../../shared/kit/stage/index.ts';
import type { TraceParts } from './assemble-trace.ts';
import type { HeldRecords } from './held-records.ts';

/** Records unpacked between two yields: about 2-4 ms of inflate and JSON.parse. */
const UNPACK_STEP = 200;

/**
 * A trace's parts, unpacked in steps of UNPACK_STEP records with a yield after each: a trace at
 * the cap holds 10,000 packed records, about 50 ms of inflate and JSON.parse in one go. Each
 * record unpacked is remembered in `positions` with where it was read (weakly: for as long as the
 * caller holds it), so that a trace that cannot be built is set aside record by record.
 */
export function* unpackInSteps(
  records: HeldRecords,
  positions: WeakMap<object, RecordPosition>,
  head: Omit<TraceParts, 'spans' | 'logs'>,
  packedSpans: readonly number[],
  packedLogs: readonly number[],
): Generator<void, TraceParts> {
  const unpacked = <T extends object>(id: number): T => {
    const { record, at } = records.read<T>(id);
    if (at) positions.set(record, at);
    return record;
  };
  const spans: SpanRecord[] = [];
  const logs: LogRecordEnvelope[] = [];
  for (let i = 0; i < packedSpans.length; i++) {
    spans.push(unpacked<SpanRecord>(packedSpans[i]));
    if ((i + 1) % UNPACK_STEP === 0) yield;
  }
  for (let i = 0; i < packedLogs.length; i++) {
    logs.push(unpacked<LogRecordEnvelope>(packedLogs[i]));
    if ((i + 1) % UNPACK_STEP === 0) yield;
  }
  return { ...head, spans, logs };
}
