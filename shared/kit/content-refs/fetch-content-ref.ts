import { open, realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ContentRefSettings } from '../../runtime/config/index.ts';

// Messages an instrumentation uploaded and recorded only by URI (`gen_ai.input.messages.ref`, …)
// are read back from where the operator allowed (TRACECHECK_CONTENT_REF_ALLOW), at most
// `maxBytes`, within `timeoutMs`. Every URI comes from a hostile trace: it is parsed first (so
// `..`, `%2e%2e` and the like are resolved), then must lie under an allowed prefix; a file's real
// path (symbolic links followed) must too; a redirect is followed only to another allowed URI.

type FetchedRef = { ok: true; text: string } | { ok: false; error: string };
export type ContentRefFetcher = (uri: string) => Promise<FetchedRef>;

const MAX_REDIRECTS = 3;
const shown = (uri: string): string => (uri.length > 200 ? `${uri.slice(0, 200)}…` : uri);

function allowedBy(allow: readonly string[], href: string): boolean {
  return allow.some((prefix) => href.startsWith(prefix));
}

/** `null` when the settings allow nothing (fetching is off). */
export function createContentRefFetcher(settings: ContentRefSettings): ContentRefFetcher | null {
  if (settings.allow.length === 0) return null;
  const { allow, maxBytes, timeoutMs } = settings;
  const tooLarge = (uri: string): FetchedRef => ({ ok: false, error: `${shown(uri)} is larger than TRACECHECK_CONTENT_REF_MAX_BYTES (${maxBytes} bytes)` });
  const outside = (uri: string): FetchedRef => ({ ok: false, error: `${shown(uri)} is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW` });

  async function readFileRef(url: URL): Promise<FetchedRef> {
    let path: string;
    try {
      path = await realpath(fileURLToPath(url));
    } catch (err) {
      return { ok: false, error: `${shown(url.href)} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
    }
    // The real path, links resolved, must still be under an allowed directory (also resolved).
    const dirs = await Promise.all(allow.filter((p) => p.startsWith('file:')).map((p) => realpath(fileURLToPath(p)).then((d) => `${d}/`, () => null)));
    if (!dirs.some((d) => d !== null && path.startsWith(d))) return outside(url.href);
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { ok: false, error: `${shown(url.href)} is not a file` };
      if (info.size > maxBytes) return tooLarge(url.href);
      const buf = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buf, 0, maxBytes + 1, 0);
      return bytesRead > maxBytes ? tooLarge(url.href) : { ok: true, text: buf.subarray(0, bytesRead).toString('utf8') };
    } finally {
      await handle.close();
    }
  }

  async function readHttpRef(url: URL, signal: AbortSignal): Promise<FetchedRef> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const res = await fetch(current, { redirect: 'manual', signal });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const location = res.headers.get('location');
        const next = location ? new URL(location, current) : null;
        if (!next || !allowedBy(allow, next.href)) return { ok: false, error: `${shown(current.href)} redirects to ${next ? shown(next.href) : 'nowhere'}, which is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW` };
        if (hop >= MAX_REDIRECTS) return { ok: false, error: `${shown(url.href)}: more than ${MAX_REDIRECTS} redirects` };
        current = next;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        return { ok: false, error: `${shown(current.href)} answered ${res.status}` };
      }
      if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
        await res.body?.cancel();
        return tooLarge(current.href);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body ?? []) {
        total += (chunk as Uint8Array).length;
        if (total > maxBytes) {
          await res.body?.cancel().catch(() => undefined);
          return tooLarge(current.href);
        }
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
      return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
    }
  }

  return async (uri) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return { ok: false, error: `${shown(uri)} is not a URI` };
    }
    if (!allowedBy(allow, url.href)) return outside(uri);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      if (url.protocol === 'file:') return await readFileRef(url);
      return await readHttpRef(url, signal);
    } catch (err) {
      if (signal.aborted) return { ok: false, error: `${shown(uri)} took longer than TRACECHECK_CONTENT_REF_TIMEOUT_MS (${timeoutMs} ms)` };
      return { ok: false, error: `${shown(uri)} could not be fetched: ${(err as Error).message}` };
    }
  };
}
