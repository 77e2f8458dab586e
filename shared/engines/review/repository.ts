import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { QueryStore, StoredDoc } from '../../adapters/store/contract.ts';
import { ReviewQueueSchema, ReviewSchema, type Review, type ReviewQueue } from './schemas.ts';

/** Document kinds in the store's keyed documents. */
export const REVIEW_DOC_KINDS = { queue: 'review_queue', review: 'review' } as const;

/** Reviews read per project at most: people's verdicts, thousands, not millions. */
const MAX_REVIEWS = 10_000;

export type InvalidReviewDoc = (doc: StoredDoc, problems: string[]) => void;

export interface ReviewFilter {
  project: string;
  unitId?: string;
  check?: string;
  checkVersion?: string;
  reviewer?: string;
  queueId?: string;
  agrees?: boolean;
}

/**
 * Review queues and reviews over a store's keyed documents (both stores keep them). One review per
 * (unit, check, reviewer): a later review by the same reviewer replaces theirs, with its revision
 * counted up; the store's last-write-wins per key is the dedup (ClickHouse decides it at read).
 */
export interface ReviewRepository {
  putQueue(queue: ReviewQueue): Promise<void>;
  getQueue(project: string, id: string): Promise<ReviewQueue | null>;
  listQueues(project: string): Promise<ReviewQueue[]>;
  /** Stores the review as the reviewer's latest; returns it with its revision. */
  putReview(review: Omit<Review, 'revision'>): Promise<Review>;
  /** Oldest first by `created_at_ms`. */
  listReviews(filter: ReviewFilter): Promise<Review[]>;
}

/** The key of a reviewer's review of one check of one unit: fixed length, whatever the ids hold. */
function reviewKey(unitId: string, check: string, reviewer: string): string {
  return createHash('sha256').update(JSON.stringify([unitId, check, reviewer])).digest('hex');
}

export function newQueueId(): string {
  return randomUUID();
}

export function createReviewRepository(store: QueryStore, onInvalid: InvalidReviewDoc = () => {}): ReviewRepository {
  function parse<T>(schema: z.ZodType<T>, doc: StoredDoc): T | null {
    const parsed = schema.safeParse(doc.body);
    if (parsed.success) return parsed.data;
    onInvalid(doc, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    return null;
  }
  return {
    putQueue(queue) {
      return store.putDoc({ kind: REVIEW_DOC_KINDS.queue, project: queue.project, id: queue.id, body: queue, updated_at_ms: queue.updated_at_ms });
    },
    async getQueue(project, id) {
      const doc = await store.getDoc(REVIEW_DOC_KINDS.queue, project, id);
      return doc ? parse(ReviewQueueSchema, doc) : null;
    },
    async listQueues(project) {
      const docs = await store.listDocs({ kind: REVIEW_DOC_KINDS.queue, project, limit: 1_000 });
      return docs
        .map((d) => parse(ReviewQueueSchema, d))
        .filter((q): q is ReviewQueue => q !== null)
        .sort((a, b) => a.created_at_ms - b.created_at_ms || a.id.localeCompare(b.id));
    },
    async putReview(input) {
      const id = reviewKey(input.unit_id, input.check, input.reviewer);
      const before = await store.getDoc(REVIEW_DOC_KINDS.review, input.project, id);
      const previous = before ? parse(ReviewSchema, before) : null;
      const review: Review = { ...input, revision: (previous?.revision ?? 0) + 1 };
      // A later write must sort after the one it replaces, even within one millisecond.
      const at = Math.max(review.created_at_ms, (before?.updated_at_ms ?? 0) + 1);
      await store.putDoc({ kind: REVIEW_DOC_KINDS.review, project: input.project, id, body: review, updated_at_ms: at });
      return review;
    },
    async listReviews(filter) {
      const docs = await store.listDocs({ kind: REVIEW_DOC_KINDS.review, project: filter.project, limit: MAX_REVIEWS });
      return docs
        .map((d) => parse(ReviewSchema, d))
        .filter((r): r is Review => r !== null && matches(r, filter))
        .sort((a, b) => a.created_at_ms - b.created_at_ms || a.unit_id.localeCompare(b.unit_id) || a.reviewer.localeCompare(b.reviewer));
    },
  };
}

function matches(r: Review, f: ReviewFilter): boolean {
  return (
    (f.unitId === undefined || r.unit_id === f.unitId) &&
    (f.check === undefined || r.check === f.check) &&
    (f.checkVersion === undefined || r.check_version === f.checkVersion) &&
    (f.reviewer === undefined || r.reviewer === f.reviewer) &&
    (f.queueId === undefined || r.queue_id === f.queueId) &&
    (f.agrees === undefined || r.agrees === f.agrees)
  );
}
