import type { CatalogEntry } from '../builtin-check.ts';
import { functionResultPresent } from './function-result-present.ts';
import { taskCompleted } from './task-completed.ts';

/** The predefined catalog, in the order `checks list` prints it. */
export const catalogEntries: readonly CatalogEntry[] = [functionResultPresent, taskCompleted];
