import type { CauseKind, FailurePoint } from './signature.ts';

export type ProblemState = 'new' | 'ongoing' | 'resolved' | 'regressed';

/** The agent and version a unit ran as; `agent\u0000version` is its key in the counts. */
export function versionKey(agent: string | null, version: string | null): string {
  return `${agent ?? ''}\u0000${version ?? ''}`;
}

export function splitVersionKey(key: string): { agent: string | null; version: string | null } {
  const [agent = '', version = ''] = key.split('\u0000');
  return { agent: agent || null, version: version || null };
}

export interface ProblemTemplate {
  id: string;
  template: string;
  count: number;
}

/** A group of failures with one signature, as the book keeps it. */
export interface Problem {
  id: string;
  /** The grouping key (see groupingKey). */
  key: string;
  /** A plain name made from the signature (no judge). */
  title: string;
  cause: CauseKind;
  agent: string | null;
  tool: string | null;
  error_class: string | null;
  /** For a loop, its cycle `a>b`; for a hand-off, `from>to`. */
  shape: string | null;
  /** Where the run went wrong, at the first occurrence. */
  point: FailurePoint | null;
  /** Failing checks seen with it, with counts. */
  checks: Record<string, number>;
  /** Units with it (each unit once). */
  count: number;
  first_seen_ms: number;
  last_seen_ms: number;
  /** Its templates, most frequent first, at most MAX_TEMPLATES. */
  templates: ProblemTemplate[];
  /** A bounded sample of its unit ids: the ones with the smallest hash, the same whatever the order. */
  sample: string[];
  /** Units with it per agent version key. */
  by_version: Record<string, number>;
  /** Units with it per hour (epoch ms of the hour), the last TREND_HOURS hours it was seen in. */
  trend: Record<string, number>;
  state: ProblemState;
  state_since_ms: number;
  /** Versions in which it was found significantly more frequent than in the version before (once each). */
  growing_in: string[];
  /** Set by a person: hidden from the list, kept counting. */
  dismissed?: { reason: string; at_ms: number };
  /** Merged into another problem by a person: its later occurrences count there. */
  merged_into?: { id: string; reason: string; at_ms: number };
}

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
