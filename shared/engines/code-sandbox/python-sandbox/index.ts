export { createPythonSandbox, pyodideDir } from './create-python-sandbox.ts';
export type { PythonSandbox, PythonSandboxOptions, PythonSandboxStats, PythonSnippetRequest, PythonSnippetResult } from './create-python-sandbox.ts';
