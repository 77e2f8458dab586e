import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { backfillRoutes, type BackfillFigures, type PrepareBackfill, type StartBackfill } from './backfill-routes.ts';
import type { ApiEnv } from './route.ts';

/** A backfill whose pages the test releases one at a time. */
function stepped() {
  const asked: StartBackfill[] = [];
  let release: (() => void) | null = null;
  const prepare: PrepareBackfill = (req) => {
    asked.push(req);
    if (req.check === 'nope') return Promise.reject(new PermanentError(`unknown check "nope" in project ${req.project}`));
    return Promise.resolve({
      id: `${req.check}@v2:abc`,
      check: req.check,
      version: 'v2',
      async run(signal: AbortSignal, onProgress: (p: BackfillFigures) => void) {
        const p = { done: 0, total: 3, scored: 0, skipped: 0 };
        while (p.done < 3 && !signal.aborted) {
          await new Promise<void>((resolve) => (release = resolve));
          p.done += 1;
          p.scored += 1;
          onProgress({ ...p });
        }
        return { ...p, finished: p.done === 3 };
      },
    });
  };
  const page = async (): Promise<void> => {
    while (!release) await Promise.resolve();
    const r = release;
    release = null;
    r();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { prepare, asked, page };
}

function appWith(prepare: PrepareBackfill | null) {
  const app = new Hono<ApiEnv>();
  app.use('*', async (c, next) => {
    c.set('project', c.req.header('x-project') ?? 'shop');
    c.set('role', 'admin');
    await next();
  });
  const routes: RouteSpec[] = [];
  backfillRoutes(app, routes, { prepare, log: createSilentLogger() });
  const call = async (method: string, path: string, body?: unknown, project = 'shop') => {
    const res = await app.request(path, { method, headers: { 'x-project': project, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { call };
}

describe('backfills run by the server', () => {
  it('starts one for the key\'s project, reports its pages, answers the running job to a second start, and finishes', async () => {
    const b = stepped();
    const { call } = appWith(b.prepare);
    const started = await call('POST', '/api/v1/backfills', { check: 'polite', from_ms: 5 });
    expect(started).toEqual({ status: 202, body: { id: 'polite@v2:abc', check: 'polite', version: 'v2', state: 'running', done: 0, total: 0, scored: 0, skipped: 0, error: null } });
    expect(b.asked).toEqual([{ project: 'shop', check: 'polite', restart: false, fromMs: 5 }]);
    await b.page();
    expect((await call('POST', '/api/v1/backfills', { check: 'polite', from_ms: 5 })).body).toMatchObject({ state: 'running', done: 1, total: 3 });
    await b.page();
    await b.page();
    expect(await call('GET', '/api/v1/backfills/polite@v2:abc')).toEqual({ status: 200, body: { id: 'polite@v2:abc', check: 'polite', version: 'v2', state: 'finished', done: 3, total: 3, scored: 3, skipped: 0, error: null } });
    expect((await call('GET', '/api/v1/backfills/polite@v2:abc', undefined, 'bank')).status).toBe(404);
  });

  it('stops after the page in hand on DELETE; another project cannot stop it', async () => {
    const b = stepped();
    const { call } = appWith(b.prepare);
    await call('POST', '/api/v1/backfills', { check: 'polite' });
    expect((await call('DELETE', '/api/v1/backfills/polite@v2:abc', undefined, 'bank')).status).toBe(404);
    expect((await call('DELETE', '/api/v1/backfills/polite@v2:abc')).status).toBe(200);
    await b.page();
    expect((await call('GET', '/api/v1/backfills/polite@v2:abc')).body).toMatchObject({ state: 'stopped', done: 1, scored: 1 });
  });

  it('refuses an unknown check with the reason, an unknown field, and answers 503 where no scorer runs', async () => {
    const { call } = appWith(stepped().prepare);
    expect(await call('POST', '/api/v1/backfills', { check: 'nope' })).toEqual({ status: 400, body: { error: 'invalid request: unknown check "nope" in project shop' } });
    expect((await call('POST', '/api/v1/backfills', { check: 'polite', form: 1 })).status).toBe(400);
    expect((await appWith(null).call('POST', '/api/v1/backfills', { check: 'polite' })).status).toBe(503);
  });
});
