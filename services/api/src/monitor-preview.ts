import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { MonitorSchema, withMonitor, type Monitor } from '../../../shared/engines/monitors/index.ts';
import { coverage, needsAttributes, sampleRecentUnits, unscored } from './plan-coverage.ts';
import { AgentCoverageSchema } from './scoring-plan-routes.ts';
import type { PlanSource } from './scoring-plan-source.ts';

export const MonitorPreviewSchema = z.object({
  dry_run: z.literal(true),
  monitor: MonitorSchema,
  agents: z.array(AgentCoverageSchema).describe('agents seen in the last 7 days, per kind of unit, under the plan with this monitor saved'),
  left_without_checks: z.array(AgentCoverageSchema.extend({ checks_now: z.array(z.string()) })).describe('those that get checks now and would get none'),
  warning: z.string().nullable(),
});
export type MonitorPreview = z.infer<typeof MonitorPreviewSchema>;

const label = (r: { agent: string | null; unit_kind: string }): string => `${r.agent ?? '(no agent name)'} (${r.unit_kind} units)`;

/**
 * What saving `monitor` would do to the agents seen in the last 7 days: the same units tried under
 * today's plan and under the plan with it, through the scorer's own decision. Saves nothing.
 */
export async function previewMonitor(store: Store, plans: PlanSource, monitor: Monitor, nowMs: number): Promise<MonitorPreview> {
  const before = await plans.load(monitor.project);
  const after = withMonitor(before, monitor);
  const sample = await sampleRecentUnits(store, monitor.project, nowMs, needsAttributes(after));
  const now = coverage(before, sample);
  const then = coverage(after, sample);
  const left = unscored(then).flatMap((r) => {
    const was = now.find((n) => n.agent === r.agent && n.unit_kind === r.unit_kind);
    return was && was.with_checks > 0 ? [{ ...r, checks_now: was.checks }] : [];
  });
  const warning =
    left.length === 0
      ? null
      : `Saving monitor "${monitor.name}" leaves ${left.length === 1 ? 'an agent' : `${left.length} agents`} seen in the last 7 days with no check: ${left.map(label).join(', ')}. Once a project has monitors, they decide: add a monitor for ${left.length === 1 ? 'it' : 'them'}, or widen this one's filters.`;
  return { dry_run: true, monitor, agents: then, left_without_checks: left, warning };
}
