import type { CheckOutcome, RunnableCheck } from '../../../shared/engines/checks/contract.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';

/** A check's outcome on a unit as a stored score, carrying the unit's agent fields for join-free queries. */
export function outcomeToScore(unit: Unit, check: Pick<RunnableCheck, 'name' | 'version'>, outcome: CheckOutcome, latencyMs: number, createdAtMs: number, costUsd = 0): Score {
  const ok = outcome.status === 'ok';
  return {
    schema_version: 1,
    unit_id: unit.unit_id,
    unit_kind: unit.kind,
    check: check.name,
    check_version: check.version,
    status: outcome.status,
    value: ok ? outcome.value : null,
    passed: ok ? outcome.passed : null,
    explanation: ok ? outcome.explanation : (outcome.explanation ?? ''),
    method: outcome.method,
    error: ok ? null : outcome.error,
    judge_model: outcome.judgeModel ?? null,
    latency_ms: Math.max(0, Math.round(latencyMs)),
    input_tokens: outcome.inputTokens ?? 0,
    output_tokens: outcome.outputTokens ?? 0,
    // From the judge price table; 0 also means "no price known for the model".
    cost_usd: costUsd,
    agent_name: unit.agent_name,
    agent_version: unit.agent_version,
    environment: unit.environment,
    service: unit.service,
    unit_end_time_ms: unit.end_time_ms,
    created_at_ms: createdAtMs,
    ...(unit.project !== undefined ? { project: unit.project } : {}),
  };
}
