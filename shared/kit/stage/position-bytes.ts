import type { RecordPosition } from './window.ts';

/** Bytes a position takes when it is kept beside a record (held-records in the assembler). */
export const POSITION_BYTES = 12;

/** Partition + 1 (0: no position), then the offset as a double: offsets stay far below 2^53. */
export function writePosition(bytes: Buffer, at: RecordPosition | undefined): void {
  bytes.writeUInt32LE(at ? at.partition + 1 : 0, 0);
  bytes.writeDoubleLE(at ? Number(at.offset) : 0, 4);
}

export function readPosition(bytes: Buffer): RecordPosition | undefined {
  const partition = bytes.readUInt32LE(0);
  return partition === 0 ? undefined : { partition: partition - 1, offset: BigInt(bytes.readDoubleLE(4)) };
}
