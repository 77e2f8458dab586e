export { MAX_QUEUE_UNIT_IDS, ReviewInputSchema, ReviewQueueFilterSchema, ReviewQueueInputSchema, ReviewQueueSchema, ReviewSchema, ReviewerSchema } from './schemas.ts';
export type { Review, ReviewInput, ReviewQueue, ReviewQueueFilter, ReviewQueueInput } from './schemas.ts';
export { REVIEW_DOC_KINDS, createReviewRepository, newQueueId, reviewKey } from './repository.ts';
export type { ReviewFilter, ReviewRepository } from './repository.ts';
export { nextInQueue, queueItems } from './queue.ts';
export type { QueuePosition } from './queue.ts';
export { checkAgreement, humanPassed, humanValue } from './agreement.ts';
export type { CheckAgreement } from './agreement.ts';
export { agreesWith, recordReview } from './record.ts';
