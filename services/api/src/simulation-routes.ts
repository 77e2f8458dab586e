import type { Hono } from 'hono';
import { z } from 'zod';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { SimulationDocSchema, getSimulation, putSimulation } from '../../../shared/engines/monitors/index.ts';
import { ChatMessageSchema } from '../../../shared/contracts/schemas/index.ts';
import { MAX_DOC_BYTES, type QueryStore } from '../../../shared/adapters/store/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

const IdParams = z.object({ id: z.string().min(1).max(500) });

/**
 * What the collector does to unit content (TRACECHECK_REDACTION), for a dialog posted here: the
 * store must not hold what the same dialog sent as spans would not have left there.
 */
export interface DocumentRedaction {
  /** Rewrites a document in place, numbered per `key`. */
  document<T>(doc: T, project: string | undefined, key: string): T;
  /** A simulation id as the collector writes it in spans, so a record and its units still meet. */
  identifier(id: string, project: string | undefined): string;
}
const SimulationBodySchema = z.object({ messages: z.array(ChatMessageSchema).min(1) }).strict();

/**
 * A simulation's own record of its dialog (the driver's side), in the OpenAI chat shape. Units with
 * that simulation id wait for it (bounded) before simulation_trace_consistency runs.
 */
export function simulationRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; log: Logger; now: () => number; redaction?: DocumentRedaction }): void {
  const log = deps.log.child({ component: 'api.simulations' });
  const redaction = deps.redaction;
  const idOf = (id: string, project: string): string => (redaction ? redaction.identifier(id, project) : id);
  const tag = 'simulations';
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/simulations/{id}',
      tag,
      role: 'admin',
      summary: "Records a simulation's own dialog ({messages: [...]}, OpenAI chat shape); replaces an earlier record.",
      pathParams: IdParams,
      body: SimulationBodySchema,
      responses: { 201: { description: 'recorded', schema: SimulationDocSchema }, 413: { description: 'the dialog is larger than the store keeps (1 MB of JSON)', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      const id = idOf(params.id, project);
      const messages = redaction ? redaction.document(body.messages, project, `simulation\u0000${id}`) : body.messages;
      if (JSON.stringify(messages).length > MAX_DOC_BYTES - 100) return { status: 413, body: { error: `a simulation's dialog is stored as at most ${MAX_DOC_BYTES} bytes of JSON` } };
      const doc = await putSimulation(deps.store, project, id, messages, deps.now());
      log.info({ simulationId: id, messages: messages.length }, 'simulation recorded');
      return { status: 201, body: doc };
    },
  );
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/simulations/{id}',
      tag,
      role: 'read',
      summary: "A simulation's recorded dialog.",
      pathParams: IdParams,
      responses: { 200: { description: 'the record', schema: SimulationDocSchema }, 404: { description: 'not recorded', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const doc = await getSimulation(deps.store, c.get('project'), idOf(params.id, c.get('project')));
      return doc ? { status: 200, body: doc } : { status: 404, body: { error: `no simulation "${params.id}" recorded` } };
    },
  );
}
