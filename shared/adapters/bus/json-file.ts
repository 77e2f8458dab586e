import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type { z } from 'zod';
import { PermanentError } from '../../runtime/errors/index.ts';

/**
 * One of the bus's small state files (offsets.json, replay.json), checked against its schema; null
 * when there is none yet. `name` names it in the error, `remedy` says what moving it away costs.
 */
export function readJsonFile<S extends z.ZodTypeAny>(path: string, schema: S, name: string, remedy: string): z.infer<S> | null {
  if (!existsSync(path)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PermanentError(`bus ${name} file ${path} is not JSON; ${remedy}`, { cause: err });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new PermanentError(`bus ${name} file ${path} is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  return parsed.data;
}

/** Replaces the file atomically (write aside, fsync, rename): a crash leaves the old file or the new one, never half of one. */
export async function writeJsonFile(path: string, json: unknown, fsync: boolean): Promise<void> {
  const aside = `${path}.tmp`;
  const handle = await open(aside, 'w');
  try {
    await handle.writeFile(JSON.stringify(json));
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(aside, path);
}
