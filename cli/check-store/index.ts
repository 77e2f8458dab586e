export { CheckStoreError, openUserChecks } from './user-checks.ts';
export type { UserChecks } from './user-checks.ts';
