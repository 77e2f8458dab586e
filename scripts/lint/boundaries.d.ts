import type { ESLint } from 'eslint';

export declare const boundaries: ESLint.Plugin;
