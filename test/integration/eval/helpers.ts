import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { CliCommand } from '../../../cli/command.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

export async function runCli(command: CliCommand, argv: string[], env: Record<string, string>): Promise<CliRun> {
  const out = sink();
  const err = sink();
  const code = await command.run(argv, { stdin: process.stdin, stdout: out.stream, stderr: err.stream, env });
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Writes files (relative path → text) into a fresh temporary folder and returns it. */
export function writeSuite(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-eval-'));
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}
