import { expect } from 'vitest';
import { SYSTEM_PROMPT, DEMO_QUESTIONS } from '../../tools/demo-agent/src/index.ts';

// The model server derives call ids from a hash of the request, so they are stable.
const HEALTHY_CALL_ID = 'call_7fb4cea811dd5c7712c2372e';
const HEALTHY_ANSWER = 'Here is what I found: city: Paris, forecast: sunny, temperature_c: 22.';

interface UnitResponse {
  unit: { messages: unknown[]; agent_name: string | null; agent_version: string | null; environment: string | null; tool_calls: unknown[] };
  scores: Array<{ check: string; value: number | null; passed: boolean | null; method: string; status: string; explanation: string; created_at: string }>;
}

async function fetchUnit(apiUrl: string, traceId: string): Promise<UnitResponse | null> {
  const res = await fetch(`${apiUrl}/api/v1/units/${traceId}`);
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return (await res.json()) as UnitResponse;
}

/** Polls until the unit has both scores, with a deadline. */
export async function waitForScoredUnit(apiUrl: string, traceId: string, timeoutMs = 30_000): Promise<UnitResponse> {
  const deadline = Date.now() + timeoutMs;
  let last: UnitResponse | null = null;
  while (Date.now() < deadline) {
    last = await fetchUnit(apiUrl, traceId);
    if (last && last.scores.length >= 2) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`unit ${traceId} did not get 2 scores within ${timeoutMs} ms (last: ${JSON.stringify(last?.scores ?? null)})`);
}

function scoreSummary(r: UnitResponse) {
  return Object.fromEntries(r.scores.map((s) => [s.check, { status: s.status, value: s.value, passed: s.passed, method: s.method }]));
}

/** What the demo's three conversations must look like once through the pipeline. */
export function expectDemoUnits(healthy: UnitResponse, toolFails: UnitResponse, loops: UnitResponse): void {
  const call = HEALTHY_CALL_ID;
  expect(healthy.unit.messages).toEqual([
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: DEMO_QUESTIONS.healthy },
    { role: 'assistant', content: null, tool_calls: [{ id: call, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', content: '{"city":"Paris","forecast":"sunny","temperature_c":22}', tool_call_id: call },
    { role: 'assistant', content: HEALTHY_ANSWER },
  ]);
  expect(healthy.unit).toMatchObject({ agent_name: 'demo-agent', agent_version: '1.0.0', environment: 'demo' });
  expect(scoreSummary(healthy)).toEqual({
    function_result_present: { status: 'ok', value: 1, passed: true, method: 'deterministic' },
    task_completed: { status: 'ok', value: 1, passed: true, method: 'model' },
  });
  expect(scoreSummary(toolFails)).toEqual({
    function_result_present: { status: 'ok', value: 0, passed: false, method: 'deterministic' },
    task_completed: { status: 'ok', value: 0, passed: false, method: 'model' },
  });
  expect(scoreSummary(loops).task_completed).toEqual({ status: 'ok', value: 0, passed: false, method: 'model' });
  for (const s of [...healthy.scores, ...toolFails.scores, ...loops.scores]) {
    expect(Number.isNaN(Date.parse(s.created_at))).toBe(false);
    expect(s.explanation.length).toBeGreaterThan(0);
  }
}

