import { z } from 'zod';
import { readJsonFile, writeJsonFile } from './json-file.ts';

/** group → topic → records kept on disk below the group's commit, for its replay (ConsumerOptions.replay). */
export type ReplayKeep = Map<string, Map<string, number>>;

const ReplayKeepFileSchema = z.record(z.string(), z.record(z.string(), z.number().int().positive()));

/**
 * Reads what the groups asked to keep for their replay (none yet: nothing). Read when the bus
 * opens, before it deletes any segment: a group's consumer asks only once it starts.
 */
export function readReplayKeepFile(path: string): ReplayKeep {
  const data = readJsonFile(path, ReplayKeepFileSchema, 'replay', 'move it away (the next start replays less)');
  return new Map(Object.entries(data ?? {}).map(([group, topics]) => [group, new Map(Object.entries(topics))]));
}

/** Replaces the file atomically, as the offsets file. */
export async function writeReplayKeepFile(path: string, keep: ReplayKeep, fsync: boolean): Promise<void> {
  await writeJsonFile(path, Object.fromEntries([...keep].map(([group, byTopic]) => [group, Object.fromEntries(byTopic)])), fsync);
}
