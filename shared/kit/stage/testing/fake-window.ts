import { PermanentError } from '../../../runtime/errors/index.ts';
import type { GroupRecord, RecordPosition, TakenGroup, Window } from '../window.ts';

/** A record of the fake stage: group `g`, item `n`; `end` makes its group ready, `bad` makes it unbuildable. */
export interface FakeRecord {
  g: string;
  n: number;
  end?: boolean;
  bad?: boolean;
}

export interface FakeGroup {
  key: string;
  records: Array<{ record: FakeRecord; at: RecordPosition }>;
}

export interface FakeOutput {
  g: string;
  ns: number[];
}

export function parseFakeRecord(value: string): FakeRecord {
  try {
    const parsed = JSON.parse(value) as FakeRecord;
    if (typeof parsed.g === 'string' && typeof parsed.n === 'number') return parsed;
  } catch {
    // Refused below.
  }
  throw new PermanentError(`not a fake record: ${value.slice(0, 40)}`);
}

export function* buildFake(group: FakeGroup): Generator<void, FakeOutput> {
  const ns: number[] = [];
  for (const { record } of group.records) {
    if (record.bad) throw new Error(`group ${group.key} holds a bad record`);
    ns.push(record.n);
    yield;
  }
  return { g: group.key, ns: ns.sort((a, b) => a - b) };
}

export const fakeRecords = (group: FakeGroup): GroupRecord[] => group.records.map(({ record, at }) => ({ value: JSON.stringify(record), at }));

/**
 * The smallest Window: records grouped by `g`, a group ready once a record with `end` came (or
 * on a forced take). What the contract suite exercises is the kit around it, not the grouping.
 */
export function createFakeWindow(): Window<FakeRecord, FakeGroup, FakeOutput> & { held(): number; confirmed: FakeOutput[]; restored: FakeGroup['records'] } {
  const open = new Map<string, { records: FakeGroup['records']; ended: boolean; taken: boolean }>();
  const confirmed: FakeOutput[] = [];
  /** What the bus replayed at start (Window.restore), as it came: kept aside, never published. */
  const restored: FakeGroup['records'] = [];
  return {
    restore(records, at) {
      for (const [i, record] of records.entries()) restored.push({ record, at: at[i] });
    },
    add(record, at) {
      let group = open.get(record.g);
      if (!group) open.set(record.g, (group = { records: [], ended: false, taken: false }));
      group.records.push({ record, at });
      if (record.end) group.ended = true;
      return record.g;
    },
    takeReady(_nowMs, force) {
      const taken: Array<TakenGroup<FakeGroup>> = [];
      for (const [key, group] of open) {
        if (group.taken || !(group.ended || force)) continue;
        group.taken = true;
        const records = [...group.records];
        taken.push({ key, reason: group.ended ? 'ended' : 'forced', load: (function* () { yield; return { key, records }; })() });
      }
      return taken;
    },
    confirm(key, _nowMs, output) {
      open.delete(key);
      if (output) confirmed.push(output);
    },
    release(key) {
      const group = open.get(key);
      if (group) group.taken = false;
    },
    openCount: () => open.size,
    held: () => [...open.values()].reduce((n, g) => n + g.records.length, 0),
    confirmed,
    restored,
  };
}
