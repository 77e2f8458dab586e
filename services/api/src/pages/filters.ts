import { z } from 'zod';
import { BUCKETS, seriesWindow, type Bucket } from '../monitoring-queries.ts';
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

/**
 * Points a page's chart shows at most: about one per pixel of its 808-pixel plot. More cost the
 * store query and the page's SVG in proportion and show nothing more: 1,440 one-minute buckets over
 * a day made the check page 2 MB and took 183 ms alone, 841 ms five at once
 * (bench/results/monitoring.md). The API's series keep their own, larger bound.
 */
const MAX_CHART_POINTS = 800;

/**
 * The series window of `bucket` over [from, to), or of the nearest larger bucket when that one
 * would make more than MAX_CHART_POINTS points (1m over a day): pages show the coarser series and
 * say so. `clampedFrom` is the bucket asked for when it was replaced.
 */
export function fitBucket(bucket: Bucket, nowMs: number, from: number, to: number | undefined): { bucket: Bucket; clampedFrom: Bucket | null; window: { from: number; to: number; bucketMs: number } } {
  const order = Object.keys(BUCKETS) as Bucket[];
  for (const b of order.slice(order.indexOf(bucket))) {
    const w = seriesWindow(b, nowMs, from - (from % BUCKETS[b]), to);
    if (w.ok && (w.value.to - w.value.from) / w.value.bucketMs <= MAX_CHART_POINTS) return { bucket: b, clampedFrom: b === bucket ? null : bucket, window: w.value };
  }
  // Even daily buckets are too many (years): the last MAX_CHART_POINTS days end at `to`.
  const last = order[order.length - 1];
  const end = to ?? Math.ceil((nowMs + 1) / BUCKETS[last]) * BUCKETS[last];
  return { bucket: last, clampedFrom: bucket === last ? null : bucket, window: { from: end - MAX_CHART_POINTS * BUCKETS[last], to: end, bucketMs: BUCKETS[last] } };
}

/** The sentence a page shows when it changed the bucket. */
export function clampNote(fit: { bucket: string; clampedFrom: string | null }): Html | null {
  return fit.clampedFrom === null ? null : h`<div class="msg" data-clamped>${fit.clampedFrom} buckets over this window make too many points: showing ${fit.bucket} buckets.</div>`;
}
