export { createPythonSandbox,  } from './create-python-sandbox.ts';
export type { PythonSandbox, PythonSandboxOptions,    } from './create-python-sandbox.ts';
