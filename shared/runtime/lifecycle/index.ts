export { createComponent, startAll, runService, waitForShutdownSignal } from './component.ts';
export type { Component } from './component.ts';
export { reportFatal, untilFatal } from './fatal.ts';
