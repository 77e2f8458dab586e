import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Hono } from 'hono';
import type { ApiEnv } from '../route.ts';

// Checks a real answer against the schema that GET /openapi.json publishes for it, so that the
// document and the server cannot drift apart unnoticed.

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> }>>;
}

export async function openApiChecker(app: Hono<ApiEnv>) {
  const doc = (await (await app.request('/openapi.json')).json()) as OpenApiDoc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return {
    doc,
    /** Throws with ajv's errors when `body` does not match the documented answer. */
    check(method: string, path: string, status: number, body: unknown): void {
      const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json'].schema;
      if (!schema) throw new Error(`no documented ${status} answer for ${method.toUpperCase()} ${path}`);
      const validate = ajv.compile(schema);
      if (!validate(body)) throw new Error(`answer does not match the document for ${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}`);
    },
  };
}
