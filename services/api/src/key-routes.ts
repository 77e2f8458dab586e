import type { Hono } from 'hono';
import { z } from 'zod';
import { ROLES, type Keyring } from '../../../shared/kit/access/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, canManage, type ApiEnv } from './route.ts';

// A project's keys through the running server: in embedded mode `tracecheck up` holds the DuckDB
// file, so `tracecheck keys revoke` cannot reach it, and a leaked key must still be revocable at
// once. An admin key lists and revokes its own project's keys only (itself included).

const KeyInfoSchema = z.object({ id: z.string(), role: z.enum(['ingest', 'read', 'admin']), name: z.string(), project: z.string(), created_at_ms: z.number() });
const CreateKeySchema = z
  .object({
    project: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "1–100 letters, digits, '.', '_' or '-', starting with a letter or digit").optional().describe("the caller's project when omitted; another only while no key exists"),
    role: z.enum(ROLES),
    name: z.string().max(200).default(''),
  })
  .strict();
const CreatedKeySchema = z.object({ key: z.string().describe('shown only this once'), id: z.string(), role: z.enum(ROLES), project: z.string(), name: z.string(), created_at_ms: z.number() });
const KeyIdParams = z.object({ id: z.string().regex(/^[0-9a-f]{12}$/, 'a key id as `tracecheck keys list` shows it (12 hex digits)') });

export function keyRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { keyring: Keyring; log: Logger }): void {
  const log = deps.log.child({ component: 'api.keys' });
  const tag = 'keys';
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/keys', tag, role: 'admin', summary: "The project's API keys (public ids, never the keys).", responses: { 200: { description: 'the keys', schema: z.object({ keys: z.array(KeyInfoSchema) }) }, 403: { description: 'not an admin key', schema: ErrorSchema } } },
    async (c) => {
      // The middleware lets any read key GET; this list is the admin's.
      if (!canManage(c)) return { status: 403, body: { error: 'a read key cannot do this (needs admin)' } };
      const project = c.get('project');
      const keys = (await deps.keyring.list()).filter((k) => k.project === project);
      return { status: 200, body: { keys: keys.map((k) => ({ id: k.id, role: k.role, name: k.name, project: k.project, created_at_ms: k.created_at_ms })) } };
    },
  );
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/keys',
      tag,
      role: 'admin',
      summary: "Creates a key of the caller's project (`tracecheck keys create` while `tracecheck up` runs). While no key exists the API is open, and the first key may be of any project.",
      body: CreateKeySchema,
      responses: { 201: { description: 'the key, shown only this once', schema: CreatedKeySchema }, 403: { description: "another project's key", schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const own = c.get('project');
      const project = body.project ?? own;
      // An admin key reaches its own project only; the open server (no key yet) is everyone's.
      if (project !== own && c.get('role') !== 'open') return { status: 403, body: { error: `an admin key of project "${own}" creates keys of "${own}" only` } };
      const { key, record } = await deps.keyring.create(project, body.role, body.name);
      log.info({ keyId: record.id, role: record.role, project }, 'api key created');
      return { status: 201, body: { key, id: record.id, role: record.role, project: record.project, name: record.name, created_at_ms: record.created_at_ms } };
    },
  );
  addRoute(
    app,
    routes,
    {
      method: 'delete',
      path: '/api/v1/keys/{id}',
      tag,
      role: 'admin',
      summary: "Revokes one of the project's keys at once (its dashboard sessions end with it); works while `tracecheck up` runs.",
      pathParams: KeyIdParams,
      responses: { 204: { description: 'revoked' }, 404: { description: 'no such key in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const project = c.get('project');
      const key = (await deps.keyring.list()).find((k) => k.id === params.id && k.project === project);
      if (!key) return { status: 404, body: { error: `no key with id "${params.id}" in this project` } };
      await deps.keyring.revoke(key.id);
      log.info({ keyId: key.id, role: key.role, project }, 'api key revoked');
      return { status: 204 };
    },
  );
}
