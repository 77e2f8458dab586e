import { packRecord, unpackRecord } from './packed-record.ts';
import type { ByteStore } from './spill-store.ts';

/** Where a record was read from: its partition and offset. */
export interface RecordOrigin {
  partition: number;
  offset: string;
}

/**
 * Records of open traces and sessions, packed (packed-record.ts) into a byte store (spill-store.ts)
 * with where each was read from: the caller keeps only the id, a small integer.
 */
export interface HeldRecords {
  /** Throws a RetriableError when the record could not be kept (disk full): nothing was kept then. */
  hold(record: object, origin?: RecordOrigin): number;
  read<T>(id: number): { record: T; origin: RecordOrigin | undefined };
  drop(id: number): void;
}

/** Partition + 1 (0: no origin), then the offset: offsets stay far below 2^53. */
const HEADER_BYTES = 12;

export function createHeldRecords(store: ByteStore): HeldRecords {
  return {
    hold(record, origin) {
      const packed = packRecord(record);
      const bytes = Buffer.allocUnsafe(HEADER_BYTES + packed.length);
      bytes.writeUInt32LE(origin ? origin.partition + 1 : 0, 0);
      bytes.writeDoubleLE(origin ? Number(origin.offset) : 0, 4);
      packed.copy(bytes, HEADER_BYTES);
      return store.put(bytes);
    },
    read<T>(id: number) {
      const bytes = store.get(id);
      const partition = bytes.readUInt32LE(0);
      const origin = partition === 0 ? undefined : { partition: partition - 1, offset: String(bytes.readDoubleLE(4)) };
      return { record: unpackRecord<T>(bytes.subarray(HEADER_BYTES)), origin };
    },
    drop: (id) => store.free(id),
  };
}
