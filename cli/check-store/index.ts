export { CheckStoreError, openUserChecks } from './user-checks.ts';
;
