import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/**
 * A venv with clients/python installed, as a user installs it (`pip install ./clients/python`;
 * its build backend is in the tree, so no network). Made once per run under .cache/python/.
 * Returns the venv's python.
 */
export async function pythonClientVenv(): Promise<string> {
  const dir = join(ROOT, '.cache', 'python', 'client-venv');
  const python = join(dir, 'bin', 'python');
  if (!existsSync(python)) {
    mkdirSync(join(ROOT, '.cache', 'python'), { recursive: true });
    await run('python3', ['-m', 'venv', dir], { timeout: 120_000 });
  }
  await run(python, ['-m', 'pip', 'install', '-q', '--no-index', '--disable-pip-version-check', join(ROOT, 'clients', 'python')], { timeout: 180_000 });
  return python;
}

export async function runPython(python: string, script: string, cwd: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return run(python, [script], { cwd, env: { ...process.env, ...env }, timeout: 120_000 });
}
