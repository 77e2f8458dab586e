export { createCodeSandbox } from './create-code-sandbox.ts';
export type { CodeSandbox, CodeSandboxOptions } from './create-code-sandbox.ts';
