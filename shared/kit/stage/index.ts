export { createWindowStage } from './window-stage.ts';
export type { WindowStage,   } from './window-stage.ts';
export { createRecordStage } from './record-stage.ts';
;
export { done, failing } from './window.ts';
export type {  RecordPosition, TakenGroup, Window } from './window.ts';
export { POSITION_BYTES, readPosition, writePosition } from './position-bytes.ts';
export { guardWindow } from './guarded-window.ts';
;
