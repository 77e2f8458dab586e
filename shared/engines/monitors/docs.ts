import { z } from 'zod';
import { ChatMessageSchema } from '../../contracts/schemas/index.ts';
import type { QueryStore, StoredDoc } from '../../adapters/store/index.ts';
import { MonitorSchema, type Monitor } from './monitor.ts';
import { CheckDefinitionError, type CheckDefinition, type CheckRegistry } from '../checks/index.ts';

// Monitors, users' checks and simulation records are small keyed documents in the store (docs
// table, both stores), so every scorer reads the same ones and sees changes by `updated_at_ms`.

export const DOC_KINDS = { monitor: 'monitor', check: 'check', simulation: 'simulation' } as const;

/** A user check with its versions, oldest first (the last is current). */
export const UserCheckDocSchema = z.object({
  name: z.string(),
  /** The name as the SDK's user wrote it ("Example Uploaded Check"), when `name` is its slug. */
  display_name: z.string().optional(),
  versions: z.array(z.object({ version: z.string(), created_at_ms: z.number(), definition: z.record(z.string(), z.unknown()) })).min(1),
});
export type UserCheckDoc = z.infer<typeof UserCheckDocSchema>;

/** A simulation's own record of its dialog (the driver's side), in the OpenAI chat shape. */
export const SimulationDocSchema = z.object({ messages: z.array(ChatMessageSchema), received_at_ms: z.number() });
export type SimulationDoc = z.infer<typeof SimulationDocSchema>;

export type InvalidDoc = (doc: StoredDoc, problems: string) => void;

function parseDocs<T>(docs: readonly StoredDoc[], schema: z.ZodType<T>, invalid: InvalidDoc): Array<{ doc: StoredDoc; body: T }> {
  return docs.flatMap((doc) => {
    const parsed = schema.safeParse(doc.body);
    if (parsed.success) return [{ doc, body: parsed.data }];
    invalid(doc, parsed.error.message);
    return [];
  });
}

const ALL = 10_000;

export async function listMonitors(store: QueryStore, invalid: InvalidDoc, project?: string): Promise<Monitor[]> {
  const docs = await store.listDocs({ kind: DOC_KINDS.monitor, limit: ALL, ...(project !== undefined ? { project } : {}) });
  return parseDocs(docs, MonitorSchema, invalid).map((d) => d.body);
}

export async function listUserChecks(store: QueryStore, invalid: InvalidDoc, project?: string): Promise<Array<{ project: string; check: UserCheckDoc; updatedAtMs: number }>> {
  const docs = await store.listDocs({ kind: DOC_KINDS.check, limit: ALL, ...(project !== undefined ? { project } : {}) });
  return parseDocs(docs, UserCheckDocSchema, invalid).map((d) => ({ project: d.doc.project, check: d.body, updatedAtMs: d.doc.updated_at_ms }));
}

export async function getSimulation(store: QueryStore, project: string, id: string): Promise<SimulationDoc | null> {
  const doc = await store.getDoc(DOC_KINDS.simulation, project, id);
  if (!doc) return null;
  const parsed = SimulationDocSchema.safeParse(doc.body);
  return parsed.success ? parsed.data : null;
}

/** A fingerprint of which docs exist at which version: scorers rebuild their selection only when it changes. */
export async function docsVersion(store: QueryStore, kinds: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const kind of kinds) {
    for (const d of await store.listDocs({ kind, limit: ALL })) parts.push(`${kind}/${d.project}/${d.id}@${d.updated_at_ms}`);
  }
  return parts.sort().join('\n');
}

export async function putSimulation(store: QueryStore, project: string, id: string, messages: SimulationDoc['messages'], nowMs: number): Promise<SimulationDoc> {
  const body: SimulationDoc = { messages, received_at_ms: nowMs };
  await store.putDoc({ kind: DOC_KINDS.simulation, project, id, body, updated_at_ms: nowMs });
  return body;
}

/**
 * Adds every stored version of a project's checks to `registry` (oldest first, so the newest is
 * current). A version saved under looser rules than today's is left out, not an error: it shows as
 * missing rather than breaking the page or request that needed the registry.
 */
export async function addStoredChecks(registry: CheckRegistry, store: QueryStore, invalid: InvalidDoc, project: string): Promise<CheckRegistry> {
  for (const { check } of await listUserChecks(store, invalid, project)) {
    for (const v of check.versions) {
      try {
        registry.createOrUpdateCheck(v.definition as unknown as CheckDefinition);
      } catch (err) {
        if (!(err instanceof CheckDefinitionError)) throw err;
      }
    }
  }
  return registry;
}
