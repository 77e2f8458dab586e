import { RetriableError } from '../../runtime/errors/index.ts';
import type { BusStorage } from './bus-storage.ts';
import type { BusMessage, OutgoingMessage } from './contract.ts';
import type { CommittedOffsets } from './offset-file.ts';
import { partitionForKey } from './partition-for-key.ts';
import type { PartitionLog } from './partition-log.ts';
import { ReadTimes } from './read-times.ts';
import { RecordWindow } from './record-window.ts';
import type { ReplayKeep } from './replay-keep-file.ts';

/** The in-process bus is full: its consumers are behind. Retriable: retry after they catch up. */
export class BusFullError extends RetriableError {}

/** What the bus holds of one topic, summed over its partitions. */
export interface TopicHoldings {
  topic: string;
  /** Records held in memory (with `durable`: those a running consumer has not read yet). */
  inMemory: number;
  /** Records some reading group has not read yet: what `maxRetainedRecords` bounds. */
  unread: number;
  /** Bytes of the topic's log segments on disk (0 without `durable`). */
  onDiskBytes: number;
  /** How long the oldest record a running consumer has not read yet has waited, its slowest group's (0: none waits). */
  lagMs: number;
}

/** How long the oldest record of `topic` that `group`'s running consumer has not read yet has waited. */
export interface GroupLag {
  topic: string;
  group: string;
  lagMs: number;
}

export interface Partition {
  /**
   * The records held in memory; `records.end` is where the next record goes. Without a log, those
   * below `records.base` were committed by every group and dropped; with one, they were read by
   * every running consumer and stay on disk only.
   */
  records: RecordWindow<BusMessage>;
  /**
   * Where a new group starts reading: records below it were committed by every group reading the
   * topic (or, with none reading it, are past `retainUnread`). Without a log, `records.base`.
   */
  start: number;
  /** The partition's log on disk (durable bus only). */
  log: PartitionLog | null;
  /** Records being written to disk: counted against the limit, not yet readable. */
  pending: number;
  /** When its records were written, for the lag in time of the records not read yet. */
  times: ReadTimes;
}

export interface Topic {
  partitions: Partition[];
  /** Resolvers of consumers idle on this topic; a send wakes them all. */
  waiters: Set<() => void>;
  /** The read positions (next offset to take, per partition) of the consumers running on it, by group. */
  positions: Map<string, number[]>;
}

export interface MemoryTopicsOptions {
  partitionCount: number;
  /** The log on disk (durable bus), or null: memory is the only copy. */
  storage: BusStorage | null;
  maxRetained: number;
  retainUnread: number;
}

/** The topics of the in-process bus: their records, the groups' commits, and what each may drop. */
export type MemoryTopics = ReturnType<typeof createMemoryTopics>;

/**
 * The records and committed offsets of the in-process bus, and the rule of what it keeps: a topic's
 * partitions keep what some reading group has not committed (in memory, or with a log on disk and
 * in memory only until every running consumer has taken it), and refuse sends (BusFullError) once
 * readers fall too far behind.
 */
export function createMemoryTopics(options: MemoryTopicsOptions) {
  const { partitionCount, storage, maxRetained, retainUnread } = options;
  const topics = new Map<string, Topic>();
  /** group → topic → partition → committed offset (the next one to read, as in Kafka). */
  const committed: CommittedOffsets = storage ? storage.readOffsets() : new Map<string, Map<string, Map<number, string>>>();
  /** Records each group keeps below its commit for its replay (ConsumerOptions.replay); on disk, read before any segment is deleted. */
  const replayKeep: ReplayKeep = storage ? storage.readReplayKeep() : new Map<string, Map<string, number>>();

  /**
   * Where a partition must keep records from: the slowest reading group, or the newest few when
   * none reads it. `forReplay`: also the records each group keeps below its commit for its replay.
   */
  const keepFromFor = (offsets: CommittedOffsets, topic: string, partition: number, end: number, forReplay = false): number => {
    const froms: number[] = [];
    for (const [group, byTopic] of offsets) {
      const c = byTopic.get(topic);
      if (c) froms.push(Number(c.get(partition) ?? 0) - (forReplay ? (replayKeep.get(group)?.get(topic) ?? 0) : 0));
    }
    if (froms.length === 0) return end - retainUnread;
    return Math.max(0, Math.min(...froms));
  };

  const topicOf = (name: string): Topic => {
    let t = topics.get(name);
    if (!t) {
      t = {
        partitions: Array.from({ length: partitionCount }, (_, p): Partition => {
          if (!storage) return { records: new RecordWindow(0), start: 0, log: null, pending: 0, times: new ReadTimes() };
          const opened = storage.openPartition(name, p, (_start, end) => keepFromFor(committed, name, p, end));
          // A commit past the end can only follow a log written without fsync and cut by a power loss.
          for (const byTopic of committed.values()) {
            const c = byTopic.get(name);
            const at = c?.get(p);
            if (c && at !== undefined && Number(at) > opened.log.endOffset()) c.set(p, String(opened.log.endOffset()));
          }
          // Records written before this start wait from now on, as far as the lag can tell.
          const times = new ReadTimes();
          if (opened.start < opened.log.endOffset()) times.mark(opened.start, Date.now());
          // Nothing is read yet: what no group committed stays on disk until a consumer asks for it.
          return { records: new RecordWindow(opened.log.endOffset()), start: opened.start, log: opened.log, pending: 0, times };
        }),
        waiters: new Set(),
        positions: new Map(),
      };
      topics.set(name, t);
    }
    return t;
  };
  // Topics on disk are opened now, so that their unread records count against the limit at once.
  if (storage) for (const name of storage.storedTopics()) topicOf(name);

  /** Records `group` keeps below its commit of `topic` for its replay (0: none); written to disk when it changed. */
  const keepForReplay = async (group: string, topic: string, records: number): Promise<void> => {
    if ((replayKeep.get(group)?.get(topic) ?? 0) === records) return;
    let byTopic = replayKeep.get(group);
    if (!byTopic) replayKeep.set(group, (byTopic = new Map<string, number>()));
    if (records > 0) byTopic.set(topic, records);
    else byTopic.delete(topic);
    if (byTopic.size === 0) replayKeep.delete(group);
    await storage?.writeReplayKeep(new Map([...replayKeep].map(([g, t]) => [g, new Map(t)])));
  };

  /** Groups that read a topic: those with a commit or a running consumer on it. */
  const readersOf = (topic: string): Map<number, string>[] => {
    const out: Map<number, string>[] = [];
    for (const byTopic of committed.values()) {
      const c = byTopic.get(topic);
      if (c) out.push(c);
    }
    return out;
  };

  /**
   * Moves each partition's start past what every reading group has committed (or, with no reader,
   * all but the newest `retainUnread`), and drops from memory what no consumer needs from it any
   * more: without a log, the records below that start (but those a group keeps for its replay);
   * with one, those every running consumer has taken (the rest of what is uncommitted, and what is
   * kept for a replay, stays on disk). So memory follows the backlog, not the life of the process.
   */
  const trim = (topic: string, t: Topic): void => {
    for (const [p, part] of t.partitions.entries()) {
      const end = part.records.end;
      const keepFrom = keepFromFor(committed, topic, p, end);
      let readFrom = end;
      for (const positions of t.positions.values()) readFrom = Math.min(readFrom, positions[p]);
      // The lag is of running consumers: times below all of them are not asked for again.
      part.times.forgetBelow(t.positions.size > 0 ? readFrom : part.start);
      if (!part.log) {
        part.records.dropBelow(keepFromFor(committed, topic, p, end, true));
        part.start = Math.max(part.records.base, Math.min(keepFrom, end));
        continue;
      }
      part.start = Math.max(part.start, Math.min(keepFrom, end));
      part.records.dropBelow(readFrom);
    }
  };

  /** How long the record at `offset` has waited (it is below `records.end`): its own time in memory, else its mark's. */
  const waitedMs = (part: Partition, offset: number, nowMs: number): number => {
    const written = offset >= part.records.base ? part.records.get(offset).timestampMs : (part.times.timeOf(offset) ?? nowMs);
    return Math.max(0, nowMs - written);
  };

  /** Per topic and running group: how long the oldest record it has not read yet has waited (over its partitions). */
  const lags = (nowMs: number): GroupLag[] => {
    const out: GroupLag[] = [];
    for (const [name, t] of topics) {
      for (const [group, positions] of t.positions) {
        let lagMs = 0;
        for (const [p, part] of t.partitions.entries()) if (positions[p] < part.records.end) lagMs = Math.max(lagMs, waitedMs(part, positions[p], nowMs));
        out.push({ topic: name, group, lagMs });
      }
    }
    return out;
  };

  /**
   * Records of the topic that some group reading it has not read yet (plus those being written):
   * what the limit bounds. Without a log, what memory holds from the lowest commit (not what is
   * kept below it for a replay). With one, from the lowest read position: a running consumer's,
   * else the group's commit (it reads from there when it starts).
   */
  const unread = (topic: string, t: Topic): number => {
    if (!storage) return t.partitions.reduce((n, part, p) => n + part.records.end - Math.max(part.records.base, keepFromFor(committed, topic, p, part.records.end)) + part.pending, 0);
    let total = 0;
    for (const [p, part] of t.partitions.entries()) {
      let from = part.records.end;
      for (const [group, byTopic] of committed) {
        const c = byTopic.get(topic);
        if (!c) continue;
        from = Math.min(from, t.positions.get(group)?.[p] ?? Number(c.get(p) ?? 0));
      }
      total += part.records.end - from + part.pending;
    }
    return total;
  };

  const wakeReaders = (t: Topic): void => {
    const waiters = [...t.waiters];
    t.waiters.clear();
    for (const wake of waiters) wake();
  };

  const pushRecord = (topic: string, part: Partition, partition: number, m: OutgoingMessage, timestampMs: number): void => {
    part.times.mark(part.records.end, timestampMs);
    part.records.push({ topic, partition, offset: String(part.records.end), key: m.key, value: m.value, headers: { ...m.headers }, timestampMs, parsed: m.parsed });
  };

  /** Adds records; with a durable bus they become readable (and the promise resolves) once fsync'd. */
  const append = (topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
    const t = topicOf(topic);
    trim(topic, t);
    const backlog = unread(topic, t);
    if (backlog + messages.length > maxRetained && readersOf(topic).length > 0) {
      throw new BusFullError(`the in-process bus holds ${backlog} records of ${topic} that its consumers have not ${storage ? 'read' : 'finished'} (limit ${maxRetained}); retry later`);
    }
    const timestampMs = Date.now();
    if (!storage) {
      for (const m of messages) {
        const partition = partitionForKey(m.key, partitionCount);
        pushRecord(topic, t.partitions[partition], partition, m, timestampMs);
      }
      wakeReaders(t);
      return Promise.resolve();
    }
    const items = messages.map((m) => {
      const partition = partitionForKey(m.key, partitionCount);
      const part = t.partitions[partition];
      part.pending += 1;
      return {
        log: part.log!,
        record: { key: m.key, value: m.value, headers: { ...m.headers }, timestampMs },
        onDurable: () => pushRecord(topic, part, partition, m, timestampMs),
      };
    });
    return storage.append(items).finally(() => {
      for (const i of items) t.partitions[partitionForKey(i.record.key, partitionCount)].pending -= 1;
      wakeReaders(t);
    });
  };

  const committedFor = (groupId: string, topic: string): Map<number, string> => {
    let byTopic = committed.get(groupId);
    if (!byTopic) {
      byTopic = new Map<string, Map<number, string>>();
      committed.set(groupId, byTopic);
    }
    let byPartition = byTopic.get(topic);
    if (!byPartition) {
      byPartition = new Map<number, string>();
      byTopic.set(topic, byPartition);
    }
    return byPartition;
  };

  /**
   * Writes the committed offsets, then deletes the segments every reading group has committed past
   * (by the offsets just written, so a restart never looks for a deleted record it still needs).
   */
  const persistOffsets = async (): Promise<void> => {
    if (!storage) return;
    const snapshot: CommittedOffsets = new Map([...committed].map(([g, byTopic]) => [g, new Map([...byTopic].map(([topic, c]) => [topic, new Map(c)]))]));
    await storage.writeOffsets(snapshot);
    for (const [name, t] of topics) {
      for (const [p, part] of t.partitions.entries()) await part.log?.deleteBelow(keepFromFor(snapshot, name, p, part.records.end, true));
      trim(name, t);
    }
  };

  /** The committed offsets as a string, to tell whether they changed since the last write. */
  const committedState = (): string => JSON.stringify([...committed].map(([g, byTopic]) => [g, [...byTopic].map(([topic, c]) => [topic, [...c]])]));

  return {
    topicOf,
    trim,
    append,
    committedFor,
    keepForReplay,
    persistOffsets,
    committedState,
    lags,
    holdings(): TopicHoldings[] {
      const byTopic = new Map<string, number>();
      for (const l of lags(Date.now())) byTopic.set(l.topic, Math.max(byTopic.get(l.topic) ?? 0, l.lagMs));
      return [...topics].map(([name, t]) => ({
        topic: name,
        inMemory: t.partitions.reduce((n, part) => n + part.records.size, 0),
        unread: unread(name, t),
        onDiskBytes: t.partitions.reduce((n, part) => n + (part.log?.sizeBytes() ?? 0), 0),
        lagMs: byTopic.get(name) ?? 0,
      }));
    },
    async closeLogs(): Promise<void> {
      for (const t of topics.values()) for (const part of t.partitions) await part.log?.close();
    },
  };
}
