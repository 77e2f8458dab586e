export { createRetentionJob,  ProjectRetentionSchema, RETENTION_DOC_ID, RETENTION_DOC_KIND } from './retention-job.ts';
export type {  RetentionJob,  } from './retention-job.ts';
