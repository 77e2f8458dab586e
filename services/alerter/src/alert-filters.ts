import type { AlertFilters } from '../../../shared/engines/alerts/index.ts';
import type { ScoreFilters } from '../../../shared/adapters/store/index.ts';

/** A rule's filters as the store's (score, unit and metric queries share these fields). */
export function toScoreFilters(f: AlertFilters | undefined): ScoreFilters {
  if (!f) return {};
  return {
    ...(f.agent !== undefined ? { agent: f.agent } : {}),
    ...(f.agent_version !== undefined ? { agentVersion: f.agent_version } : {}),
    ...(f.environment !== undefined ? { environment: f.environment } : {}),
    ...(f.service !== undefined ? { service: f.service } : {}),
    ...(f.unit_kind !== undefined ? { unitKind: f.unit_kind } : {}),
  };
}
