import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { z } from 'zod';
import { PermanentError } from '../../runtime/errors/index.ts';

/** group → topic → partition → committed offset (the next one to read). */
export type CommittedOffsets = Map<string, Map<string, Map<number, string>>>;

const OffsetsFileSchema = z.record(z.string(), z.record(z.string(), z.record(z.string().regex(/^\d+$/), z.string().regex(/^\d+$/))));

/** Reads the committed offsets file (none yet: no commits). */
export function readOffsetsFile(path: string): CommittedOffsets {
  const out: CommittedOffsets = new Map();
  if (!existsSync(path)) return out;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PermanentError(`bus offsets file ${path} is not JSON; move it away to re-read the whole log`, { cause: err });
  }
  const parsed = OffsetsFileSchema.safeParse(json);
  if (!parsed.success) throw new PermanentError(`bus offsets file ${path} is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  for (const [group, topics] of Object.entries(parsed.data)) {
    const byTopic = new Map<string, Map<number, string>>();
    for (const [topic, partitions] of Object.entries(topics)) {
      byTopic.set(topic, new Map(Object.entries(partitions).map(([p, o]) => [Number(p), o])));
    }
    out.set(group, byTopic);
  }
  return out;
}

/**
 * Replaces the offsets file atomically (write aside, fsync, rename): a crash leaves the old file or
 * the new one, never half of one. Offsets may lag the consumers; that only means a replay.
 */
export async function writeOffsetsFile(path: string, offsets: CommittedOffsets, fsync: boolean): Promise<void> {
  const json: Record<string, Record<string, Record<string, string>>> = {};
  for (const [group, byTopic] of offsets) {
    json[group] = {};
    for (const [topic, byPartition] of byTopic) json[group][topic] = Object.fromEntries([...byPartition].map(([p, o]) => [String(p), o]));
  }
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
