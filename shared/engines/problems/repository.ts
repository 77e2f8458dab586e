import { z } from 'zod';
import type { QueryStore, StoredDoc } from '../../adapters/store/contract.ts';
import { createProblemBook, type ProblemBook, type ProblemBookOptions, type VersionCount } from './book.ts';
import { ProblemSchema, type Problem, type ProblemEvent } from './problem.ts';
import type { TemplateMinerState } from './template-miner.ts';

/**
 * Document kinds in the store's keyed documents (a table in both stores, keyed by kind, project
 * and id): one per problem, one per project for the miner's templates and the version counts, and
 * one per state change (what the alerter delivers), and one per problem a person dismissed or
 * merged (apart from the miner's, so that neither overwrites the other).
 */
export const PROBLEM_DOC_KINDS = { problem: 'problem', book: 'problem_book', event: 'problem_event', action: 'problem_action' } as const;

/** Problems read per project at most (the book keeps at most its maxProblems, 1,000 by default). */
const MAX_PROBLEM_DOCS = 10_000;
const BOOK_ID = 'book';

const BookDocSchema = z.object({
  miner: z.object({ templates: z.array(z.object({ id: z.string(), tokens: z.array(z.string()), count: z.number() })) }),
  versions: z.record(z.string(), z.object({ units: z.number(), first_seen_ms: z.number(), last_seen_ms: z.number() })),
  recent_units: z.array(z.string()),
});

const ProblemEventSchema = z.object({
  kind: z.enum(['problem_new', 'problem_regressed', 'problem_growing', 'problem_resolved']),
  problem_id: z.string(),
  at_ms: z.number(),
  version: z.string().optional(),
  baseline: z.string().optional(),
  p_value: z.number().optional(),
  units: z.array(z.string()),
});

export type InvalidProblemDoc = (doc: StoredDoc, issues: string[]) => void;

function parseDoc<T>(schema: z.ZodType<T>, doc: StoredDoc, onInvalid: InvalidProblemDoc): T | null {
  const parsed = schema.safeParse(doc.body);
  if (parsed.success) return parsed.data;
  onInvalid(doc, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return null;
}

/** A project's problems, newest activity first (merged ones included; callers decide what to show). */
export async function listProblems(store: QueryStore, project: string, onInvalid: InvalidProblemDoc = () => {}): Promise<Problem[]> {
  const docs = await store.listDocs({ kind: PROBLEM_DOC_KINDS.problem, project, limit: MAX_PROBLEM_DOCS });
  return docs.map((d) => parseDoc(ProblemSchema, d, onInvalid)).filter((p): p is Problem => p !== null);
}

export async function getProblem(store: QueryStore, project: string, id: string, onInvalid: InvalidProblemDoc = () => {}): Promise<Problem | null> {
  const doc = await store.getDoc(PROBLEM_DOC_KINDS.problem, project, id);
  return doc ? parseDoc(ProblemSchema, doc, onInvalid) : null;
}

/** The project's book as stored (an empty one for a project never seen). */
export async function loadBook(store: QueryStore, project: string, options: ProblemBookOptions, onInvalid: InvalidProblemDoc = () => {}): Promise<ProblemBook> {
  const [problems, doc] = await Promise.all([listProblems(store, project, onInvalid), store.getDoc(PROBLEM_DOC_KINDS.book, project, BOOK_ID)]);
  const rest = doc ? parseDoc(BookDocSchema, doc, onInvalid) : null;
  return createProblemBook(options, { problems, miner: rest?.miner ?? { templates: [] }, versions: rest?.versions ?? {}, recent_units: rest?.recent_units ?? [] });
}

/** Writes the problems changed since the last save, and the book's templates and counts. */
export async function saveBook(store: QueryStore, project: string, book: ProblemBook, nowMs: number): Promise<void> {
  const ids = book.takeChanged();
  const state = book.state();
  for (const id of ids) {
    const p = book.get(id);
    if (p) await store.putDoc({ kind: PROBLEM_DOC_KINDS.problem, project, id, body: p, updated_at_ms: nowMs });
  }
  await store.putDoc({ kind: PROBLEM_DOC_KINDS.book, project, id: BOOK_ID, body: { miner: state.miner, versions: state.versions, recent_units: state.recent_units }, updated_at_ms: nowMs });
}

/** A state change's document id: a replay of the same change is the same document (and the alerter delivers it once). */
function problemEventId(event: ProblemEvent): string {
  return `${event.problem_id}:${event.kind}:${event.version ?? ''}:${event.at_ms}`;
}

/** A state change, kept for the alerter. */
export function putProblemEvent(store: QueryStore, project: string, event: ProblemEvent, nowMs: number): Promise<void> {
  return store.putDoc({ kind: PROBLEM_DOC_KINDS.event, project, id: problemEventId(event), body: event, updated_at_ms: nowMs });
}

export interface StoredProblemEvent {
  id: string;
  project: string;
  event: ProblemEvent;
  updated_at_ms: number;
}

/** The newest 1,000 state changes (of a project, or of all) stored at or after `sinceMs`, newest first. */
export async function listProblemEvents(store: QueryStore, project: string | undefined, sinceMs: number, onInvalid: InvalidProblemDoc = () => {}): Promise<StoredProblemEvent[]> {
  const docs = await store.listDocs({ kind: PROBLEM_DOC_KINDS.event, ...(project ? { project } : {}), limit: 1_000 });
  return docs
    .filter((d) => d.updated_at_ms >= sinceMs)
    .map((d) => ({ id: d.id, project: d.project, event: parseDoc(ProblemEventSchema, d, onInvalid), updated_at_ms: d.updated_at_ms }))
    .filter((e): e is StoredProblemEvent => e.event !== null);
}

/** What people decided about a problem: dismissed, or merged into another, each with its reason. */
const ProblemActionSchema = z.object({
  dismissed: z.object({ reason: z.string(), at_ms: z.number() }).optional(),
  merged_into: z.object({ id: z.string(), reason: z.string(), at_ms: z.number() }).optional(),
});
export type ProblemAction = z.infer<typeof ProblemActionSchema>;

export async function listProblemActions(store: QueryStore, project: string, onInvalid: InvalidProblemDoc = () => {}): Promise<Map<string, ProblemAction>> {
  const docs = await store.listDocs({ kind: PROBLEM_DOC_KINDS.action, project, limit: MAX_PROBLEM_DOCS });
  const out = new Map<string, ProblemAction>();
  for (const d of docs) {
    const action = parseDoc(ProblemActionSchema, d, onInvalid);
    if (action) out.set(d.id, action);
  }
  return out;
}

export function putProblemAction(store: QueryStore, project: string, id: string, action: ProblemAction, nowMs: number): Promise<void> {
  return store.putDoc({ kind: PROBLEM_DOC_KINDS.action, project, id, body: action, updated_at_ms: nowMs });
}

/** The units per agent version the project's book has counted (the denominators of the rates). */
export async function loadVersionCounts(store: QueryStore, project: string): Promise<Map<string, VersionCount>> {
  const doc = await store.getDoc(PROBLEM_DOC_KINDS.book, project, BOOK_ID);
  const parsed = doc ? BookDocSchema.safeParse(doc.body) : null;
  return new Map(Object.entries(parsed?.success ? parsed.data.versions : {}));
}

/** The book's templates as stored (empty for a project never mined). */
export async function loadMinerState(store: QueryStore, project: string): Promise<TemplateMinerState> {
  const doc = await store.getDoc(PROBLEM_DOC_KINDS.book, project, BOOK_ID);
  const parsed = doc ? BookDocSchema.safeParse(doc.body) : null;
  return parsed?.success ? parsed.data.miner : { templates: [] };
}
