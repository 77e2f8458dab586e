import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const app = createApp({ store, log, now: () => Date.UTC(2026, 10, 23) });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

const post = async (body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await app.request('/api/v1/checks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const code = { kind: 'code', name: 'hang', description: 'never answers', outputType: 'pass_fail', language: 'typescript', source: 'export function evaluate() { return new Promise(() => {}); }' };

describe('POST /api/v1/checks: a code check definition out of bounds is a 400 naming each problem', () => {
  it('refuses a timeoutMs of 2,000,000,000', async () => {
    expect(await post({ ...code, timeoutMs: 2_000_000_000 })).toEqual({
      status: 400,
      body: {
        error: 'invalid request: timeoutMs must be a whole number of milliseconds from 1 to 10000 (got 2000000000)',
        issues: ['timeoutMs must be a whole number of milliseconds from 1 to 10000 (got 2000000000)'],
      },
    });
  });

  it('refuses fields of the wrong type or size instead of failing on them', async () => {
    const issues = [
      'description must be text of at most 10000 characters',
      'range must be [min, max] with min < max',
      'threshold must be a finite number',
      'source is 1000010 characters; at most 1000000 are allowed',
      'timeoutMs must be a whole number of milliseconds from 1 to 10000 (got "5000")',
    ];
    expect(await post({ ...code, timeoutMs: '5000', range: { min: 0 }, threshold: 'high', description: 7, source: `${'/'.repeat(1_000_001)} evaluate` })).toEqual({
      status: 400,
      body: { error: `invalid request: ${issues.join('; ')}`, issues },
    });
  });

  it('stores one within the bounds', async () => {
    const res = await post({ ...code, timeoutMs: 10_000 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'hang', changed: true });
  });
});

describe('POST /api/v1/checks: an unknown {name} in a template is left as-is, with a warning', () => {
  it('stores the SDK\'s check whose template names {audience}, and warns of it', async () => {
    const res = await post({ name: 'tone_for_audience', description: 'tone', prompt_template: 'Is {generation} written for {audience}? Answer [[True]] or [[False]].', check_type: 'PASS_FAIL' });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([expect.stringMatching(/^\{audience\} is no template variable and is left as-is in the prompt \(the variables: \{generation\}, \{output\}, /)]);
  });

  it('gives no warnings field to a template of known variables', async () => {
    const res = await post({ name: 'tone_plain', description: 'tone', prompt_template: 'Is {generation} polite?', check_type: 'PASS_FAIL' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('warnings');
  });
});
