export { createContentRefFetcher } from './fetch-content-ref.ts';
export type { ContentRefFetcher, FetchedRef } from './fetch-content-ref.ts';
export { refMessages, withFetchedDialog } from './ref-dialog.ts';
