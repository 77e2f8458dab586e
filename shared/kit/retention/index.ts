export { createRetentionJob, effectiveDays, ProjectRetentionSchema, RETENTION_DOC_ID, RETENTION_DOC_KIND } from './retention-job.ts';
export type { ProjectRetention, RetentionJob, RetentionJobOptions } from './retention-job.ts';
