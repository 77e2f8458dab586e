import type { Hono } from 'hono';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { RecentSchema } from './receive-schemas.ts';
import { summarizeService, type ServiceReceipt } from './receive-summary.ts';
import { addRoute, type ApiEnv } from './route.ts';

// GET /api/v1/ingest/recent: what the project's agents send, per service (see receive-summary.ts).
// Read from the store's latest trace units, so it answers the same in the one-process mode and on
// Kafka, where the collector is another process; bounded: a few hundred unit summaries listed,
// a few units per service read whole.

/** Trace units listed to find the services (newest first). */
export const RECENT_UNITS = 300;
/** Units read whole per service. */
export const UNITS_PER_SERVICE = 5;
const MAX_SERVICES = 20;

/** Per service of the project, newest first: its latest trace units read whole and summarized. */
export async function recentReceipts(store: Store, project: string): Promise<{ services: ServiceReceipt[]; units_listed: number }> {
  const listed = await store.listUnits({ project, unitKind: 'trace', limit: RECENT_UNITS });
  const byService = new Map<string | null, string[]>();
  for (const u of listed) {
    const ids = byService.get(u.service) ?? [];
    if (ids.length === 0 && byService.size >= MAX_SERVICES) continue;
    if (ids.length < UNITS_PER_SERVICE) ids.push(u.unit_id);
    byService.set(u.service, ids);
  }
  const units = await store.getUnits([...byService.values()].flat(), project);
  const services = [...byService].map(([service, ids]) => summarizeService(service, ids.flatMap((id) => units.get(id) ?? [])));
  return { services, units_listed: listed.length };
}

export function receiveRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/ingest/recent',
      tag: 'units',
      role: 'read',
      summary: `What the project's agents send, per service (\`service.name\`), latest first: the last ${UNITS_PER_SERVICE} trace units of each (root span, span count, whether message text arrived), the instrumentation scopes they came from with their convention family, and warnings (what is missing and the setting that fixes it). From the latest ${RECENT_UNITS} trace units; at most ${MAX_SERVICES} services.`,
      responses: { 200: { description: 'per service', schema: RecentSchema } },
    },
    async (c) => ({ status: 200, body: await recentReceipts(store, c.get('project')) }),
  );
}
