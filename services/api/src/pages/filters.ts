import { z } from 'zod';
import { TimeParamSchema } from '../time-param.ts';
import { UNIT_FILTER_NAMES, type UnitFilterValues } from '../query-params.ts';
import type { ApiEnv } from '../route.ts';
import type { Context } from 'hono';
import { h, type Html } from './html.ts';

// The pages' query strings: the API's own filter names, so a page URL and an API URL say the same.
// Empty form fields mean "no filter" here (a page form always sends every field).

export const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;

const blankAsUndefined = (v: unknown): unknown => (v === '' ? undefined : v);
const optional = <T extends z.ZodType>(s: T) => z.preprocess(blankAsUndefined, s.optional());

const text = z.string().max(200);
export const PageFilterParams = {
  agent: optional(text),
  agent_version: optional(text),
  environment: optional(text),
  service: optional(text),
  unit_kind: optional(z.enum(['trace', 'session', 'eval'])),
};

export const PageWindowParams = {
  window: z.enum(['1h', '24h', '7d', '30d']).default('24h'),
  from: optional(TimeParamSchema),
  to: optional(TimeParamSchema),
};

export function filtersOf(q: Record<string, unknown>): UnitFilterValues {
  return Object.fromEntries(UNIT_FILTER_NAMES.filter((k) => q[k] !== undefined).map((k) => [k, q[k]]));
}

/** Parses a page's query string; the problems as one sentence when it does not parse. */
export function parsePageQuery<T extends z.ZodType>(c: Context<ApiEnv>, schema: T): { ok: true; value: z.output<T> } | { ok: false; error: string } {
  const r = schema.safeParse(c.req.query());
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ') };
}

/** The window [from, to): explicit bounds win, else the named window ending now. */
export function windowOf(q: { window: WindowName; from?: number | undefined; to?: number | undefined }, nowMs: number): { from: number; to: number } {
  const to = q.to ?? nowMs + 1;
  return { from: q.from ?? to - WINDOWS[q.window], to };
}

/** The filter form every page shares: window and the unit filters, submitted as a GET (a shareable URL). */
export function filterForm(action: string, q: Record<string, unknown>, extra: Html | null = null): Html {
  const text = (name: string, label: string) => h`<label>${label}<input name="${name}" value="${typeof q[name] === 'string' ? (q[name]) : ''}" placeholder="any"></label>`;
  return h`<form class="filters" method="get" action="${action}">
<label>window<select name="window">${Object.keys(WINDOWS).map((w) => h`<option value="${w}" ${q.window === w ? h`selected` : null}>last ${w}</option>`)}</select></label>
${text('agent', 'agent')}${text('agent_version', 'version')}${text('environment', 'environment')}${text('service', 'service')}
${extra}<button type="submit">Apply</button></form>`;
}

/** The unit filters and window as query parameters, for links that keep the view. */
export function viewParams(q: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of [...UNIT_FILTER_NAMES, 'window']) if (typeof q[k] === 'string') out[k] = q[k];
  return out;
}
