export { createGroupCommit } from './group-commit.ts';
;
