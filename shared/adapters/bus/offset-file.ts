import { z } from 'zod';
import { readJsonFile, writeJsonFile } from './json-file.ts';

/** group → topic → partition → committed offset (the next one to read). */
export type CommittedOffsets = Map<string, Map<string, Map<number, string>>>;

const OffsetsFileSchema = z.record(z.string(), z.record(z.string(), z.record(z.string().regex(/^\d+$/), z.string().regex(/^\d+$/))));

/** Reads the committed offsets file (none yet: no commits). */
export function readOffsetsFile(path: string): CommittedOffsets {
  const out: CommittedOffsets = new Map();
  const data = readJsonFile(path, OffsetsFileSchema, 'offsets', 'move it away to re-read the whole log');
  for (const [group, topics] of Object.entries(data ?? {})) {
    const byTopic = new Map<string, Map<number, string>>();
    for (const [topic, partitions] of Object.entries(topics)) {
      byTopic.set(topic, new Map(Object.entries(partitions).map(([p, o]) => [Number(p), o])));
    }
    out.set(group, byTopic);
  }
  return out;
}

/** Replaces the offsets file atomically. Offsets may lag the consumers; that only means a replay. */
export async function writeOffsetsFile(path: string, offsets: CommittedOffsets, fsync: boolean): Promise<void> {
  const json: Record<string, Record<string, Record<string, string>>> = {};
  for (const [group, byTopic] of offsets) {
    json[group] = {};
    for (const [topic, byPartition] of byTopic) json[group][topic] = Object.fromEntries([...byPartition].map(([p, o]) => [String(p), o]));
  }
  await writeJsonFile(path, json, fsync);
}
