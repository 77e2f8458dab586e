import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Unit } from '../../contracts/schemas/index.ts';
import { JUDGE_MODES, type JudgeMode } from '../checks/index.ts';

/** Modes by check name, `{"loop_guard": "judge"}`: how each judge-described check decides. */
export const CheckModesSchema = z.record(z.string(), z.enum(JUDGE_MODES as [JudgeMode, ...JudgeMode[]]));

const MonitorFiltersSchema = z
  .object({
    agent: z.string(),
    agent_version: z.string(),
    service: z.string(),
    environment: z.string(),
    unit_kind: z.enum(['trace', 'session']),
    /** Every pair must equal one of the unit's attributes (its root span's and resource's). */
    attributes: z.record(z.string(), z.string()),
  })
  .partial()
  .strict();
export type MonitorFilters = z.infer<typeof MonitorFiltersSchema>;

const MonitorBudgetSchema = z
  .object({
    calls_per_minute: z.number().int().positive(),
    usd_per_day: z.number().nonnegative(),
  })
  .partial()
  .strict();

export const MonitorNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'letters, digits, _ . - (at most 100)');

/** What a user sends: which checks run on which units, how many of them, within which judge budget. */
export const MonitorInputSchema = z
  .object({
    name: MonitorNameSchema,
    checks: z.array(z.string().min(1)).min(1),
    /** Per check: how the judge-described checks decide (`judge`, `hybrid` (their default) or `deterministic`). */
    modes: CheckModesSchema.optional(),
    filters: MonitorFiltersSchema.default({}),
    /** The share of matching units scored, decided by a hash of the unit id (a unit is always in or always out). */
    sample_rate: z.number().min(0).max(1).default(1),
    budget: MonitorBudgetSchema.optional(),
    enabled: z.boolean().default(true),
    /** Refuse to set this monitor live unless each check's current version agrees with people this often (a recorded try, or reviews of that version). */
    min_agreement: z.number().min(0).max(1).optional(),
    /** With min_agreement: the fewest reviews the measured agreement must rest on (default 20). */
    min_samples: z.number().int().positive().optional(),
  })
  .strict();
export type MonitorInput = z.infer<typeof MonitorInputSchema>;

export const MonitorSchema = MonitorInputSchema.extend({
  project: z.string(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type Monitor = z.infer<typeof MonitorSchema>;

/** A unit's place in [0, 1): the first 32 bits of SHA-256 of its id. The same on every scorer and every replay. */
export function sampleKey(unitId: string): number {
  return createHash('sha256').update(unitId).digest().readUInt32BE(0) / 2 ** 32;
}

export function isSampled(unitId: string, rate: number): boolean {
  return rate >= 1 || sampleKey(unitId) < rate;
}

/** What filters and sampling read of a unit (a stored unit's summary carries all but `attributes`). */
export type PlanSubject = Pick<Unit, 'unit_id' | 'kind' | 'agent_name' | 'agent_version' | 'service' | 'environment' | 'attributes' | 'simulation_record'>;

export function matchesFilters(unit: PlanSubject, f: MonitorFilters): boolean {
  if (f.agent !== undefined && unit.agent_name !== f.agent) return false;
  if (f.agent_version !== undefined && unit.agent_version !== f.agent_version) return false;
  if (f.service !== undefined && unit.service !== f.service) return false;
  if (f.environment !== undefined && unit.environment !== f.environment) return false;
  if (f.unit_kind !== undefined && unit.kind !== f.unit_kind) return false;
  for (const [k, v] of Object.entries(f.attributes ?? {})) if (unit.attributes?.[k] !== v) return false;
  return true;
}

/** The monitor applies to this unit: enabled, its filters match, and the unit is in its sample. */
export function monitorApplies(monitor: Pick<Monitor, 'enabled' | 'filters' | 'sample_rate'>, unit: PlanSubject): boolean {
  return monitor.enabled && matchesFilters(unit, monitor.filters) && isSampled(unit.unit_id, monitor.sample_rate);
}
