import { z } from 'zod';

// The API described once: each route's parameters and answers are zod schemas, used to validate
// requests and, through z.toJSONSchema, to write GET /openapi.json. Tests check real answers
// against the same schemas, so the document cannot drift from the server.

type Method = 'get' | 'post' | 'put' | 'delete';

export interface RouteSpec {
  method: Method;
  /** OpenAPI form: `/api/v1/units/{unitId}`. */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  pathParams?: z.ZodObject;
  body?: z.ZodType;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  /** Which key role may call it; absent: no key needed. */
  role?: 'read' | 'admin';
}

export const ErrorSchema = z.object({ error: z.string(), issues: z.array(z.string()).optional(), requestId: z.string().optional() });

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): unknown => z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parameters(obj: z.ZodObject | undefined, where: 'query' | 'path'): unknown[] {
  if (!obj) return [];
  return Object.entries(obj.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const schema = jsonSchema(f, 'input') as Record<string, unknown>;
    const description = (schema.description as string | undefined) ?? f.description;
    return { name, in: where, required: where === 'path' || !f.safeParse(undefined).success, ...(description ? { description } : {}), schema };
  });
}

const ERROR_RESPONSE = { description: 'error', content: { 'application/json': { schema: jsonSchema(ErrorSchema, 'output') } } };

export function openApiDocument(routes: readonly RouteSpec[], info: { title: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      responses[status] = res.schema ? { description: res.description, content: { 'application/json': { schema: jsonSchema(res.schema, 'output') } } } : { description: res.description };
    }
    responses['400'] ??= ERROR_RESPONSE;
    if (r.role) responses['401'] ??= { ...ERROR_RESPONSE, description: 'no valid key (only once keys exist)' };
    if (r.body) responses['415'] ??= { ...ERROR_RESPONSE, description: 'the body is not sent as application/json' };
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: [r.tag],
      parameters: [...parameters(r.pathParams, 'path'), ...parameters(r.query, 'query')],
      responses,
      ...(r.role ? { security: [{ bearer: [] }] } : {}),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } } } : {}),
    };
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key from `tracecheck keys create` (read or admin role)' } } },
  };
}
