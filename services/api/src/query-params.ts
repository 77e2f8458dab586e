import { z } from 'zod';
import type { ScoreFilters } from '../../../shared/adapters/store/index.ts';
import { TimeParamSchema } from './time-param.ts';

// Query-string filters shared by the listing and monitoring endpoints. One place decides their
// names (the API's snake_case) and how they map onto the store's filters.

const text = z.string().max(200);
/** An empty value selects rows that have none (e.g. `agent_version=` → units without a version). */
export const UnitFilterParams = {
  agent: text.optional().describe('agent name (`gen_ai.agent.name`); empty selects units without one'),
  agent_version: text.optional().describe('agent version; empty selects units without one'),
  environment: text.optional().describe('deployment environment; empty selects units without one'),
  service: text.optional().describe('`service.name`; empty selects units without one'),
  unit_kind: z.enum(['trace', 'session', 'eval']).optional().describe('unit kind'),
};

export const UNIT_FILTER_NAMES = Object.keys(UnitFilterParams) as (keyof typeof UnitFilterParams)[];

export const TimeRangeParams = {
  from: TimeParamSchema.optional().describe('inclusive start: epoch ms or ISO 8601'),
  to: TimeParamSchema.optional().describe('exclusive end: epoch ms or ISO 8601'),
};

export const BooleanParam = z.enum(['true', 'false']).transform((v) => v === 'true');

export type UnitFilterValues = { [K in keyof typeof UnitFilterParams]?: z.output<(typeof UnitFilterParams)[K]> };

/** The API's filter names → the store's. */
export function toScoreFilters(f: UnitFilterValues): ScoreFilters {
  const out: ScoreFilters = {};
  if (f.agent !== undefined) out.agent = f.agent;
  if (f.agent_version !== undefined) out.agentVersion = f.agent_version;
  if (f.environment !== undefined) out.environment = f.environment;
  if (f.service !== undefined) out.service = f.service;
  if (f.unit_kind !== undefined) out.unitKind = f.unit_kind;
  return out;
}
