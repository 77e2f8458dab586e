import { PassThrough, Readable } from 'node:stream';
import { main } from './main.ts';

/** Runs the CLI in-process as a user would, with `stdin` as input and an empty environment. */
export async function runCli(argv: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await main(argv, { stdin: Readable.from([stdin]), stdout: out, stderr: err, env: {} });
  return { code, stdout, stderr };
}
