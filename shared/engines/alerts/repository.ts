import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { QueryStore, StoredDoc } from '../../adapters/store/contract.ts';
import { AlertEventSchema, AlertStateSchema, type AlertEvent, type AlertState } from './event.ts';
import { AlertRuleSchema, describeIssues, type AlertRule } from './rule.ts';

/** Document kinds in the store's keyed documents. */
export const ALERT_DOC_KINDS = { rule: 'alert_rule', state: 'alert_state', event: 'alert_event' } as const;

const MAX_DOCS = 10_000;

interface AlertEventPage {
  /** Newest first. */
  events: AlertEvent[];
  /** Pass as `beforeMs` for the next page; null when there is none. */
  nextBeforeMs: number | null;
}

interface ListEventsQuery {
  project: string;
  ruleId?: string;
  /** Only events last written strictly before this (a `nextBeforeMs`). */
  beforeMs?: number;
  /** 1–1000, default 50. */
  limit?: number;
}

/** A stored document whose body does not parse: skipped by listings, reported here. */
export type InvalidDocHandler = (doc: StoredDoc, problems: string[]) => void;

/** Typed access to alert rules, their states and the alert history over a store's keyed documents. */
export interface AlertRepository {
  /** Every rule of a project, or of every project when `project` is unset. */
  listRules(project?: string): Promise<AlertRule[]>;
  getRule(project: string, id: string): Promise<AlertRule | null>;
  putRule(rule: AlertRule): Promise<void>;
  /** Deletes the rule and its state; its history stays. */
  deleteRule(project: string, id: string): Promise<void>;
  /** States by rule id (ids are UUIDs, unique across projects), of a project or of every project. */
  listStates(project?: string): Promise<Map<string, AlertState>>;
  putState(project: string, state: AlertState, atMs: number): Promise<void>;
  /** Writes an event; `updatedAtMs` orders the history (and must grow when the event is rewritten). */
  putEvent(event: AlertEvent, updatedAtMs: number): Promise<void>;
  getEvent(project: string, id: string): Promise<AlertEvent | null>;
  listEvents(query: ListEventsQuery): Promise<AlertEventPage>;
}

/** A time-sortable event id: creation time in ms (13 digits) and 8 random hex digits. */
export function newAlertEventId(atMs: number): string {
  return `${String(Math.max(0, Math.floor(atMs))).padStart(13, '0')}-${randomBytes(4).toString('hex')}`;
}

export function createAlertRepository(store: QueryStore, onInvalid: InvalidDocHandler = () => {}): AlertRepository {
  function parse<T>(schema: z.ZodType<T>, doc: StoredDoc): T | null {
    const parsed = schema.safeParse(doc.body);
    if (parsed.success) return parsed.data;
    onInvalid(doc, describeIssues(parsed.error));
    return null;
  }

  async function listEventDocs(project: string, beforeMs: number | undefined, limit: number): Promise<StoredDoc[]> {
    return store.listDocs({ kind: ALERT_DOC_KINDS.event, project, limit, ...(beforeMs !== undefined ? { beforeMs } : {}) });
  }

  /**
   * One page of event docs, newest first, cut so that no `updated_at_ms` straddles two pages: the
   * store pages by "strictly before", so a page ending inside a run of equal timestamps would lose
   * the rest of the run. The run is left to the next page (cursor = its timestamp + 1), unless it
   * fills the whole page, which is then widened to hold all of it.
   */
  async function eventDocPage(project: string, beforeMs: number | undefined, limit: number): Promise<{ docs: StoredDoc[]; next: number | null }> {
    const docs = sortDocs(await listEventDocs(project, beforeMs, limit + 1));
    if (docs.length <= limit) return { docs, next: null };
    const boundary = docs[limit].updated_at_ms;
    const page = docs.slice(0, limit).filter((d) => d.updated_at_ms !== boundary);
    if (page.length > 0) return { docs: page, next: boundary + 1 };
    const wide = sortDocs(await listEventDocs(project, boundary + 1, MAX_DOCS)).filter((d) => d.updated_at_ms === boundary);
    return { docs: wide, next: boundary };
  }

  return {
    async listRules(project) {
      const docs = await store.listDocs({ kind: ALERT_DOC_KINDS.rule, limit: MAX_DOCS, ...(project !== undefined ? { project } : {}) });
      return docs
        .map((d) => parse(AlertRuleSchema, d))
        .filter((r): r is AlertRule => r !== null)
        .sort((a, b) => a.created_at_ms - b.created_at_ms || a.id.localeCompare(b.id));
    },
    async getRule(project, id) {
      const doc = await store.getDoc(ALERT_DOC_KINDS.rule, project, id);
      return doc ? parse(AlertRuleSchema, doc) : null;
    },
    putRule(rule) {
      return store.putDoc({ kind: ALERT_DOC_KINDS.rule, project: rule.project, id: rule.id, body: rule, updated_at_ms: rule.updated_at_ms });
    },
    async deleteRule(project, id) {
      await store.deleteDoc(ALERT_DOC_KINDS.rule, project, id);
      await store.deleteDoc(ALERT_DOC_KINDS.state, project, id);
    },
    async listStates(project) {
      const docs = await store.listDocs({ kind: ALERT_DOC_KINDS.state, limit: MAX_DOCS, ...(project !== undefined ? { project } : {}) });
      const states = new Map<string, AlertState>();
      for (const d of docs) {
        const s = parse(AlertStateSchema, d);
        if (s) states.set(s.rule_id, s);
      }
      return states;
    },
    putState(project, state, atMs) {
      return store.putDoc({ kind: ALERT_DOC_KINDS.state, project, id: state.rule_id, body: state, updated_at_ms: atMs });
    },
    putEvent(event, updatedAtMs) {
      return store.putDoc({ kind: ALERT_DOC_KINDS.event, project: event.project, id: event.id, body: event, updated_at_ms: updatedAtMs });
    },
    async getEvent(project, id) {
      const doc = await store.getDoc(ALERT_DOC_KINDS.event, project, id);
      return doc ? parse(AlertEventSchema, doc) : null;
    },
    async listEvents(query) {
      const limit = Math.min(Math.max(query.limit ?? 50, 1), 1_000);
      const events: AlertEvent[] = [];
      let before = query.beforeMs;
      // Filtering by rule happens here (documents are keyed, not indexed by body fields): read
      // pages until this page is full or the history ends, at most 20 store round trips per call.
      for (let round = 0; round < 20; round++) {
        const { docs, next } = await eventDocPage(query.project, before, query.ruleId === undefined ? limit : 1_000);
        for (const [i, d] of docs.entries()) {
          const previous = docs[i - 1];
          // Full: stop where the timestamp changes, so the cursor ("strictly before") loses nothing.
          if (events.length >= limit && previous && d.updated_at_ms !== previous.updated_at_ms) return { events, nextBeforeMs: previous.updated_at_ms };
          const e = parse(AlertEventSchema, d);
          if (e && (query.ruleId === undefined || e.rule_id === query.ruleId)) events.push(e);
        }
        if (next === null || events.length >= limit) return { events, nextBeforeMs: next };
        before = next;
      }
      return { events, nextBeforeMs: before ?? null };
    },
  };
}

/** Newest first by `updated_at_ms`, then by id (ids are time-sortable), so pages are deterministic. */
function sortDocs(docs: StoredDoc[]): StoredDoc[] {
  return [...docs].sort((a, b) => b.updated_at_ms - a.updated_at_ms || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
