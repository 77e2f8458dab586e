import { crc32 } from 'node:zlib';

/** A record as the durable log keeps it; its offset is its position, so it is not stored. */
export interface LoggedRecord {
  key: string;
  value: string;
  headers: Record<string, string>;
  timestampMs: number;
}

/** Bytes before a frame's payload: payload length (u32) and the payload's CRC-32 (u32). */
export const FRAME_HEADER_BYTES = 8;
/** Larger than any record the collector accepts; a length past it is a torn or corrupt frame. */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/**
 * One record as `[length u32][crc32 u32][payload]`, payload = timestamp (f64), then key, value and
 * headers (JSON, empty when there are none), each as `[bytes u32][utf-8]`.
 */
export function encodeFrame(record: LoggedRecord): Buffer {
  const key = Buffer.from(record.key, 'utf8');
  const value = Buffer.from(record.value, 'utf8');
  const headers = Object.keys(record.headers).length === 0 ? Buffer.alloc(0) : Buffer.from(JSON.stringify(record.headers), 'utf8');
  const payloadBytes = 8 + 12 + key.length + value.length + headers.length;
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payloadBytes);
  let at = FRAME_HEADER_BYTES;
  frame.writeDoubleBE(record.timestampMs, at);
  at += 8;
  for (const part of [key, value, headers]) {
    frame.writeUInt32BE(part.length, at);
    at += 4;
    part.copy(frame, at);
    at += part.length;
  }
  frame.writeUInt32BE(payloadBytes, 0);
  frame.writeUInt32BE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
  return frame;
}

export interface DecodedFrames {
  records: LoggedRecord[];
  /** Bytes of whole, intact frames from the start: where a torn or corrupt tail begins. */
  validBytes: number;
}

/**
 * Decodes frames from the start of `bytes` and stops at the first that is cut short or fails its
 * CRC (a write torn by a crash), so everything before it is trusted and nothing after it is.
 */
export function decodeFrames(bytes: Buffer): DecodedFrames {
  const records: LoggedRecord[] = [];
  let at = 0;
  while (at + FRAME_HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    if (length < 20 || length > MAX_PAYLOAD_BYTES || at + FRAME_HEADER_BYTES + length > bytes.length) break;
    const payload = bytes.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length);
    if (crc32(payload) !== bytes.readUInt32BE(at + 4)) break;
    const record = decodePayload(payload);
    if (!record) break;
    records.push(record);
    at += FRAME_HEADER_BYTES + length;
  }
  return { records, validBytes: at };
}

function decodePayload(payload: Buffer): LoggedRecord | null {
  let at = 8;
  const parts: string[] = [];
  for (let i = 0; i < 3; i++) {
    if (at + 4 > payload.length) return null;
    const n = payload.readUInt32BE(at);
    at += 4;
    if (at + n > payload.length) return null;
    parts.push(payload.toString('utf8', at, at + n));
    at += n;
  }
  if (at !== payload.length) return null;
  const [key, value, headersJson] = parts;
  let headers: Record<string, string> = {};
  if (headersJson !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(headersJson);
    } catch {
      return null;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    headers = Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
  return { key, value, headers, timestampMs: payload.readDoubleBE(0) };
}
