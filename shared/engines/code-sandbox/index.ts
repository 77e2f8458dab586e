export { createCodeSandbox } from './create-code-sandbox.ts';
export type { CodeSandbox,  } from './create-code-sandbox.ts';
