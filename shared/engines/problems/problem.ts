import { z } from 'zod';

/** The agent and version a unit ran as; `agent\u0000version` is its key in the counts. */
export function versionKey(agent: string | null, version: string | null): string {
  return `${agent ?? ''}\u0000${version ?? ''}`;
}

export function splitVersionKey(key: string): { agent: string | null; version: string | null } {
  const [agent = '', version = ''] = key.split('\u0000');
  return { agent: agent || null, version: version || null };
}

const PointSchema = z.object({ agent: z.string().nullable(), step: z.number().int().nonnegative() });

const ProblemTemplateSchema = z.object({ id: z.string(), template: z.string(), count: z.number().int().nonnegative() });

/** A group of failures with one signature, as the book keeps it (and the store, one document each). */
export const ProblemSchema = z.object({
  id: z.string(),
  /** The grouping key (see groupingKey). */
  key: z.string(),
  /** A plain name made from the signature (no judge). */
  title: z.string(),
  cause: z.enum(['tool_error', 'loop', 'handoff_unreturned', 'unit_error', 'check']),
  agent: z.string().nullable(),
  tool: z.string().nullable(),
  error_class: z.string().nullable(),
  /** For a loop, its cycle `a>b`; for a hand-off, `from>to`. */
  shape: z.string().nullable(),
  /** Where the run went wrong, at the first occurrence. */
  point: PointSchema.nullable(),
  /** Failing checks seen with it, with counts. */
  checks: z.record(z.string(), z.number()),
  /** Units with it (each unit once). */
  count: z.number().int().nonnegative(),
  first_seen_ms: z.number(),
  last_seen_ms: z.number(),
  /** Its templates, most frequent first, at most 2 × MAX_TEMPLATES. */
  templates: z.array(ProblemTemplateSchema),
  /** A bounded sample of its unit ids: the ones with the smallest hash, the same whatever the order. */
  sample: z.array(z.string()),
  /** Units with it per agent version key. */
  by_version: z.record(z.string(), z.number()),
  /** Units with it per hour (epoch ms of the hour), the last TREND_HOURS hours it was seen in. */
  trend: z.record(z.string(), z.number()),
  state: z.enum(['new', 'ongoing', 'resolved', 'regressed']),
  state_since_ms: z.number(),
  /** Version keys in which it was found significantly more frequent than in the version before (once each). */
  growing_in: z.array(z.string()),
  /** Set by a person: hidden from the list, kept counting. */
  dismissed: z.object({ reason: z.string(), at_ms: z.number() }).optional(),
  /** Merged into another problem by a person: its later occurrences count there. */
  merged_into: z.object({ id: z.string(), reason: z.string(), at_ms: z.number() }).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

export const MAX_TEMPLATES = 5;
export const MAX_SAMPLE = 20;
export const TREND_HOURS = 72;
export const HOUR_MS = 3_600_000;

/** A state change the book reports once: what the problem alerts are made of. */
export interface ProblemEvent {
  kind: 'problem_new' | 'problem_regressed' | 'problem_growing' | 'problem_resolved';
  problem_id: string;
  at_ms: number;
  /** problem_growing: the version it grew in and the one before it, with the always-valid p. */
  version?: string;
  baseline?: string;
  p_value?: number;
  /** Its sample of unit ids at the time. */
  units: string[];
}

function describeCause(p: Pick<Problem, 'cause' | 'tool' | 'error_class' | 'shape' | 'checks'>, template: string): string {
  switch (p.cause) {
    case 'tool_error':
      return `${p.tool} fails (${p.error_class})`;
    case 'loop':
      return `loop over ${p.shape?.split('>').join(' > ')}`;
    case 'handoff_unreturned':
      return `hand-off ${p.shape?.split('>').join(' > ')} never returned`;
    case 'unit_error':
      return `run error (${p.error_class}): ${template}`;
    case 'check':
      return `${Object.keys(p.checks)[0] ?? 'check'}: ${template}`;
  }
}

export function titleOf(p: Pick<Problem, 'cause' | 'tool' | 'error_class' | 'shape' | 'checks' | 'agent'>, template: string): string {
  const text = describeCause(p, template);
  const title = p.agent ? `${p.agent}: ${text}` : text;
  return title.length > 160 ? `${title.slice(0, 159)}…` : title;
}

/** Adds `p`'s occurrences to `into` (a merge): counts, first and last seen, per version, per check, per hour. Samples and templates are the caller's. */
export function addOccurrences(into: Problem, p: Problem): void {
  into.count += p.count;
  into.first_seen_ms = Math.min(into.first_seen_ms, p.first_seen_ms);
  into.last_seen_ms = Math.max(into.last_seen_ms, p.last_seen_ms);
  for (const [k, n] of Object.entries(p.by_version)) into.by_version[k] = (into.by_version[k] ?? 0) + n;
  for (const [k, n] of Object.entries(p.checks)) into.checks[k] = (into.checks[k] ?? 0) + n;
  for (const [k, n] of Object.entries(p.trend)) into.trend[k] = (into.trend[k] ?? 0) + n;
}
