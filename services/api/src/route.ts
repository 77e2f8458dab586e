import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { acceptedMediaType } from '../../../shared/runtime/http/index.ts';
import type { RouteSpec } from './api-spec.ts';
import type { Role } from '../../../shared/kit/access/index.ts';

const JSON_ONLY = ['application/json'] as const;

// Registers a route from its spec: path parameters, query and body are validated with the spec's
// zod schemas before the handler runs (400 naming every problem), so the OpenAPI document and the
// server share one definition.

interface ApiVariables {
  /** The project of the caller's key (`default` when no keys exist). */
  project: string;
  /** The caller's role: `open` while no key exists (everyone may do everything, as `default`). */
  role: Role | 'open';
  requestId: string;
  /** The public id of the caller's key (unset while no key exists): who reviews, by default. */
  keyId?: string;
  /** Dashboard pages: the visitor signed in with a key (the login cookie), so a sign-out is offered. */
  signedIn?: boolean;
}
export type ApiEnv = { Variables: ApiVariables };

/** Admin keys, and everyone while no key exists (the open quick start): may see and change everything of the project. */
export function canManage(c: Context<ApiEnv>): boolean {
  const role = c.get('role');
  return role === 'admin' || role === 'open';
}

export interface Parsed<Q, P, B> {
  query: Q;
  params: P;
  body: B;
}

export interface Answer {
  status: number;
  body?: unknown;
}

function problem(issues: z.ZodError, where: string): { error: string; issues: string[] } {
  const list = issues.issues.map((i) => `${[where, ...i.path.map(String)].join('.')}: ${i.message}`);
  return { error: `invalid request: ${list.join('; ')}`, issues: list };
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** Query strings with repeated keys keep the last value; unknown keys are refused by strict schemas. */
export function addRoute<S extends RouteSpec>(
  app: Hono<ApiEnv>,
  routes: RouteSpec[],
  spec: S,
  handler: (c: Context<ApiEnv>, input: Parsed<Out<S['query']>, Out<S['pathParams']>, Out<S['body']>>) => Promise<Answer>,
): void {
  routes.push(spec);
  const honoPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
  app.on(spec.method.toUpperCase(), honoPath, async (c) => {
    const query = spec.query ? spec.query.safeParse(c.req.query()) : null;
    if (query && !query.success) return c.json(problem(query.error, 'query'), 400);
    const params = spec.pathParams ? spec.pathParams.safeParse(c.req.param()) : null;
    if (params && !params.success) return c.json(problem(params.error, 'path'), 400);
    let body: unknown = undefined;
    if (spec.body) {
      // Only JSON: a body of another type (text/plain, a form) is what a web page of another
      // origin can send without a CORS preflight, and we grant none.
      if (acceptedMediaType(c.req.header('content-type'), JSON_ONLY) === undefined) {
        const type = (c.req.header('content-type') ?? '').slice(0, 100);
        return c.json({ error: `unsupported Content-Type "${type}": send application/json` }, 415);
      }
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch {
        return c.json({ error: 'invalid request: the body must be JSON' }, 400);
      }
      const parsed = spec.body.safeParse(raw);
      if (!parsed.success) return c.json(problem(parsed.error, 'body'), 400);
      body = parsed.data;
    }
    const answer = await handler(c, { query: query?.data, params: params?.data, body } as Parsed<Out<S['query']>, Out<S['pathParams']>, Out<S['body']>>);
    if (answer.body === undefined) return c.body(null, answer.status as 204);
    return c.json(answer.body, answer.status as 200);
  });
}
