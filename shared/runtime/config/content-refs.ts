import { z } from 'zod';

/** Fetching messages recorded by reference (`gen_ai.input.messages.ref`, …): off unless prefixes are allowed. */
export interface ContentRefSettings {
  /** URI prefixes (`file:///…/`, `https://host/…`) content may be read from; empty: never fetched. */
  allow: string[];
  maxBytes: number;
  timeoutMs: number;
}

const SCHEMES = ['file:', 'http:', 'https:'];

/** A prefix as the fetcher compares it: parsed (so `..` and case in the host are resolved), ending in `/`. */
function normalizePrefix(text: string): string | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `"${text}" is not a URI prefix such as file:///var/lib/genai-uploads/ or https://uploads.example.com/genai/` };
  }
  if (!SCHEMES.includes(url.protocol)) return { problem: `"${text}": only file://, http:// and https:// prefixes can be allowed` };
  if (url.search || url.hash || url.username || url.password) return { problem: `"${text}": a prefix has no query, fragment or credentials` };
  if (url.protocol === 'file:' && url.host !== '') return { problem: `"${text}": a file prefix has no host (file:///path/)` };
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/** Spread into ConfigSchema. */
export const CONTENT_REF_ENV = {
  TRACECHECK_CONTENT_REF_ALLOW: z
    .string()
    .default('')
    .transform((text, ctx): string[] => {
      const out: string[] = [];
      for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
        const p = normalizePrefix(entry);
        if (typeof p === 'string') out.push(p);
        else ctx.addIssue({ code: 'custom', message: p.problem });
      }
      return out;
    }),
  TRACECHECK_CONTENT_REF_MAX_BYTES: z.coerce.number().int().min(1).max(64 * 1024 * 1024).default(1024 * 1024),
  TRACECHECK_CONTENT_REF_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(2_000),
};

type Parsed = { TRACECHECK_CONTENT_REF_ALLOW: string[]; TRACECHECK_CONTENT_REF_MAX_BYTES: number; TRACECHECK_CONTENT_REF_TIMEOUT_MS: number };

export function contentRefSettingsOf(c: Parsed): ContentRefSettings {
  return { allow: c.TRACECHECK_CONTENT_REF_ALLOW, maxBytes: c.TRACECHECK_CONTENT_REF_MAX_BYTES, timeoutMs: c.TRACECHECK_CONTENT_REF_TIMEOUT_MS };
}
