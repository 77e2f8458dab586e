export { createComponent, startAll, runService, waitForShutdownSignal } from './component.ts';
export type { Component } from './component.ts';
