import type { Hono } from 'hono';
import { z } from 'zod';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { SimulationDocSchema, getSimulation, putSimulation } from '../../../shared/engines/monitors/index.ts';
import { ChatMessageSchema } from '../../../shared/contracts/schemas/index.ts';
import { MAX_DOC_BYTES, type QueryStore } from '../../../shared/adapters/store/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

const IdParams = z.object({ id: z.string().min(1).max(500) });
const SimulationBodySchema = z.object({ messages: z.array(ChatMessageSchema).min(1) }).strict();

/**
 * A simulation's own record of its dialog (the driver's side), in the OpenAI chat shape. Units with
 * that simulation id wait for it (bounded) before simulation_trace_consistency runs.
 */
export function simulationRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; log: Logger; now: () => number }): void {
  const log = deps.log.child({ component: 'api.simulations' });
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
      if (JSON.stringify(body.messages).length > MAX_DOC_BYTES - 100) return { status: 413, body: { error: `a simulation's dialog is stored as at most ${MAX_DOC_BYTES} bytes of JSON` } };
      const doc = await putSimulation(deps.store, c.get('project'), params.id, body.messages, deps.now());
      log.info({ simulationId: params.id, messages: body.messages.length }, 'simulation recorded');
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
      const doc = await getSimulation(deps.store, c.get('project'), params.id);
      return doc ? { status: 200, body: doc } : { status: 404, body: { error: `no simulation "${params.id}" recorded` } };
    },
  );
}
