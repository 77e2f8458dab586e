export { createComponent, startAll, runService } from './component.ts';
export type { Component } from './component.ts';
