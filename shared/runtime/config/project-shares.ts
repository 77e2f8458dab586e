import { z } from 'zod';
import { DEFAULT_PROJECT_SHARES, DEFAULT_SCORER_READ_AHEAD } from './defaults.ts';

const positiveInt = z.coerce.number().int().positive();

/**
 * Each project's share of the traces the assembler holds open (docs/guarantees.md, "Fair shares between projects"): past one, the
 * collector answers that project's exports that would add to it 429, and the assembler closes its
 * oldest root-less traces first. Spread into ConfigSchema.
 */
export const PROJECT_SHARES_ENV = {
  TRACECHECK_PROJECT_MAX_OPEN_TRACES: positiveInt.default(DEFAULT_PROJECT_SHARES.maxOpenTraces),
  TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES: positiveInt.default(DEFAULT_PROJECT_SHARES.maxRootlessTraces),
  TRACECHECK_PROJECT_MAX_OPEN_BYTES: positiveInt.default(DEFAULT_PROJECT_SHARES.maxOpenBytes),
  TRACECHECK_SCORER_READ_AHEAD_UNITS: positiveInt.default(DEFAULT_SCORER_READ_AHEAD.units),
  TRACECHECK_SCORER_READ_AHEAD_BYTES: positiveInt.default(DEFAULT_SCORER_READ_AHEAD.bytes),
};

/** One project's share: open traces, those of them without a root span, and their held bytes. */
export interface ProjectShares {
  maxOpenTraces: number;
  maxRootlessTraces: number;
  maxOpenBytes: number;
  /**
   * Units the scorer reads ahead of those it scores, and their bytes: projects take turns among
   * them, so one project's backlog read ahead holds another's next unit back by one turn.
   */
  scorerReadAhead: { units: number; bytes: number };
}

type Parsed = { [K in keyof typeof PROJECT_SHARES_ENV]: number };

export function projectSharesOf(c: Parsed): ProjectShares {
  return {
    maxOpenTraces: c.TRACECHECK_PROJECT_MAX_OPEN_TRACES,
    maxRootlessTraces: c.TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES,
    maxOpenBytes: c.TRACECHECK_PROJECT_MAX_OPEN_BYTES,
    scorerReadAhead: { units: c.TRACECHECK_SCORER_READ_AHEAD_UNITS, bytes: c.TRACECHECK_SCORER_READ_AHEAD_BYTES },
  };
}
