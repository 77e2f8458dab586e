import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { MonitorInputSchema, type Monitor } from './monitor.ts';

const FileSchema = z.object({ monitors: z.array(MonitorInputSchema) }).strict();

/**
 * Monitors from a YAML file (`monitors: [{name, checks, filters, sample_rate, budget}]`), for those
 * who keep configuration in files. They apply to every project, next to the stored ones. A bad file
 * throws naming the file and every problem.
 */
export function loadMonitorsFile(path: string): Monitor[] {
  const parsed = FileSchema.safeParse(parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.monitors.map((m) => ({ ...m, project: '*', created_at_ms: 0, updated_at_ms: 0 }));
}
