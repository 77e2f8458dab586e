export { createGroupCommit } from './group-commit.ts';
export type { GroupCommit, GroupCommitOptions } from './group-commit.ts';
