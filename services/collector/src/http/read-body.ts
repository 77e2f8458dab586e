import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

export type BodyResult =
  | { ok: true; body: Buffer }
  | { ok: false; status: 400 | 413 | 415 | 429; message: string };

/** The refusal when the admission budget will not hold the body's bytes (see readBody's `ensure`). */
export const SATURATED_MESSAGE = 'collector saturated, retry later';

/**
 * Reads a request body under `maxBytes`, before and after decompression. Over the limit, the rest
 * of the upload is read and thrown away (so the client can read our 413), never kept.
 * `ensure(total)` is asked before the body grows to `total` bytes (read, then decompressed): the
 * admission budget counts what is actually held, a chunked body too. When it says no, reading
 * stops and the answer is 429; the connection is closed after it, the rest never read.
 */
export async function readBody(req: IncomingMessage, maxBytes: number, ensure: (totalBytes: number) => boolean = () => true): Promise<BodyResult> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (!['identity', '', 'gzip', 'x-gzip', 'deflate'].includes(encoding)) {
    req.resume();
    return { ok: false, status: 415, message: `unsupported Content-Encoding "${encoding.slice(0, 40)}" (gzip, deflate and identity are accepted)` };
  }
  const declared = Number(req.headers['content-length']);
  let tooLarge = Number.isFinite(declared) && declared > maxBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  // Past this, an over-limit upload is cut off instead of drained: the client may miss our 413.
  const drainLimit = maxBytes * 4;
  try {
    // Not destroyed on an early return: the 429 must still reach the client.
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (!tooLarge && size <= maxBytes && !ensure(size)) {
        req.pause();
        return { ok: false, status: 429, message: SATURATED_MESSAGE };
      }
      if (tooLarge || size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        if (size > drainLimit) {
          req.destroy();
          break;
        }
        continue;
      }
      chunks.push(buf);
    }
  } catch (err) {
    if (!tooLarge) return { ok: false, status: 400, message: `could not read the request body: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (tooLarge) return { ok: false, status: 413, message: `request body exceeds ${maxBytes} bytes` };
  const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
  if (encoding === 'identity' || encoding === '' || raw.length === 0) return { ok: true, body: raw };
  const inflated = await decompress(raw, encoding, maxBytes);
  if (inflated.ok && !ensure(inflated.body.length)) return { ok: false, status: 429, message: SATURATED_MESSAGE };
  return inflated;
}

function isOutputLimitError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ERR_BUFFER_TOO_LARGE' || (err instanceof RangeError && /larger than/i.test(err.message));
}

/**
 * Inflates with zlib's `maxOutputLength`: zlib stops producing output at the cap, so a
 * decompression bomb never allocates more than `maxBytes`.
 */
async function decompress(raw: Buffer, encoding: string, maxBytes: number): Promise<BodyResult> {
  const opts = { maxOutputLength: maxBytes };
  try {
    if (encoding === 'deflate') {
      // "deflate" is zlib-wrapped by the RFC, but some clients send raw deflate.
      const zlibWrapped = raw.length >= 2 && (raw[0] & 0x0f) === 8 && ((raw[0] << 8) | raw[1]) % 31 === 0;
      return { ok: true, body: zlibWrapped ? await inflate(raw, opts) : await inflateRaw(raw, opts) };
    }
    return { ok: true, body: await gunzip(raw, opts) };
  } catch (err) {
    if (isOutputLimitError(err)) return { ok: false, status: 413, message: `decompressed request body exceeds ${maxBytes} bytes` };
    return { ok: false, status: 400, message: `could not decompress ${encoding} body: ${err instanceof Error ? err.message : String(err)}` };
  }
}
