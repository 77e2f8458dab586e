/**
 * Simulated failures for judge-operations tests: `X-Mock-Fail: 429|500|503` (or the model name
 * `mock-429` / `mock-500` / `mock-503`). `X-Mock-Fail-Times: n` fails only the first n times the
 * server sees that exact request body, so a client's retry then succeeds. `X-Mock-Retry-After`
 * sets the 429/503 Retry-After seconds (default 1).
 */
export interface FailurePlan {
  status: number;
  retryAfterSeconds: string | null;
}

const SUPPORTED = new Set([429, 500, 502, 503]);

export function failureFor(model: string | undefined, header: string | undefined, retryAfterHeader: string | undefined): FailurePlan | null {
  const fromModel = model ? /^mock-(\d{3})$/.exec(model)?.[1] : undefined;
  const raw = header?.trim() || fromModel;
  if (!raw) return null;
  const status = Number(raw);
  if (!SUPPORTED.has(status)) return null;
  const retryAfter = retryAfterHeader?.trim() || '1';
  return { status, retryAfterSeconds: status === 429 || status === 503 ? retryAfter : null };
}

export function errorBody(status: number): { error: { message: string; type: string; param: null; code: string | null } } {
  if (status === 429) {
    return { error: { message: 'Rate limit reached (simulated by the tracecheck model server).', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  }
  return { error: { message: `The server had an error while processing your request (simulated ${status}).`, type: 'server_error', param: null, code: null } };
}
