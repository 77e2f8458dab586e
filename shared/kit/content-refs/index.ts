export { createContentRefFetcher } from './fetch-content-ref.ts';
;
export {  withFetchedDialog } from './ref-dialog.ts';
