import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { z } from 'zod';
import { PermanentError } from '../../runtime/errors/index.ts';

/** group → topic → records kept on disk below the group's commit, for its replay (ConsumerOptions.replay). */
export type ReplayKeep = Map<string, Map<string, number>>;

const ReplayKeepFileSchema = z.record(z.string(), z.record(z.string(), z.number().int().positive()));

/**
 * Reads what the groups asked to keep for their replay (none yet: nothing). Read when the bus
 * opens, before it deletes any segment: a group's consumer asks only once it starts.
 */
export function readReplayKeepFile(path: string): ReplayKeep {
  const out: ReplayKeep = new Map();
  if (!existsSync(path)) return out;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PermanentError(`bus replay file ${path} is not JSON; move it away (the next start replays less)`, { cause: err });
  }
  const parsed = ReplayKeepFileSchema.safeParse(json);
  if (!parsed.success) throw new PermanentError(`bus replay file ${path} is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  for (const [group, topics] of Object.entries(parsed.data)) out.set(group, new Map(Object.entries(topics)));
  return out;
}

/** Replaces the file atomically (write aside, fsync, rename), as the offsets file. */
export async function writeReplayKeepFile(path: string, keep: ReplayKeep, fsync: boolean): Promise<void> {
  const json = Object.fromEntries([...keep].map(([group, byTopic]) => [group, Object.fromEntries(byTopic)]));
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
