import { POSITION_BYTES, readPosition, writePosition, type RecordPosition } from '../../../shared/kit/stage/index.ts';
import { packRecord, unpackRecord } from './packed-record.ts';
import type { ByteStore } from './spill-store.ts';

/**
 * Records of open traces and sessions, packed (packed-record.ts) into a byte store (spill-store.ts)
 * with where each was read: the caller keeps only the id, a small integer.
 */
export interface HeldRecords {
  /** Throws a RetriableError when the record could not be kept (disk full): nothing was kept then. */
  hold(record: object, at?: RecordPosition): number;
  /** As hold, with the bytes it takes (for the caps on what open traces hold). */
  holdSized(record: object, at?: RecordPosition): { id: number; bytes: number };
  read<T>(id: number): { record: T; at: RecordPosition | undefined };
  drop(id: number): void;
}

export function createHeldRecords(store: ByteStore): HeldRecords {
  function holdSized(record: object, at?: RecordPosition): { id: number; bytes: number } {
    const packed = packRecord(record);
    const bytes = Buffer.allocUnsafe(POSITION_BYTES + packed.length);
    writePosition(bytes, at);
    packed.copy(bytes, POSITION_BYTES);
    return { id: store.put(bytes), bytes: bytes.length };
  }
  return {
    hold: (record, at) => holdSized(record, at).id,
    holdSized,
    read<T>(id: number) {
      const bytes = store.get(id);
      return { record: unpackRecord<T>(bytes.subarray(POSITION_BYTES)), at: readPosition(bytes) };
    },
    drop: (id) => store.free(id),
  };
}
