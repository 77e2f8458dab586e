// CPU of the problem miner against the scorer's, from a V8 CPU profile of this process's main
// thread (node:inspector): each sample goes to the miner when a frame of its stack is the miner
// stage's (services/alerter/src/problems: its intake, ticks and everything they call, the book and
// the store included), else to the scorer when a frame is the scorer's (services/scorer); the rest
// (collector, assembler, bus, store, API, load generator, GC) to neither. Code after an `await` resumes under its own async function's frame, so a stage's
// store reads and writes issued from it count for it; native work on other threads (DuckDB's) does not.
import { Session } from 'node:inspector/promises';

interface Node {
  id: number;
  children?: number[];
  callFrame: { url: string; functionName: string; lineNumber: number };
}

const MINER = /\/services\/alerter\/src\/problems\//;
const SCORER = /\/services\/scorer\//;

export interface CpuShare {
  minerMs: number;
  scorerMs: number;
  totalMs: number;
  /** The miner's samples by the function they were in (self time), largest first. */
  minerTop: Array<[string, number]>;
}

export async function startCpuShare(): Promise<{ stop(): Promise<CpuShare> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1_000 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] } };
      session.disconnect();
      const parent = new Map<number, number>();
      for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const owner = new Map<number, 'miner' | 'scorer' | null>();
      const ownerOf = (id: number): 'miner' | 'scorer' | null => {
        const known = owner.get(id);
        if (known !== undefined) return known;
        let found: 'miner' | 'scorer' | null = null;
        for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
          const url = byId.get(at)?.callFrame.url ?? '';
          if (MINER.test(url)) {
            found = 'miner';
            break;
          }
          if (!found && SCORER.test(url)) found = 'scorer';
        }
        owner.set(id, found);
        return found;
      };
      let minerUs = 0;
      let scorerUs = 0;
      let totalUs = 0;
      const minerSelf = new Map<string, number>();
      profile.samples.forEach((id, i) => {
        const dt = profile.timeDeltas[i] ?? 0;
        if (byId.get(id)?.callFrame.functionName === '(idle)') return;
        totalUs += dt;
        const o = ownerOf(id);
        if (o === 'miner') {
          minerUs += dt;
          const cf = byId.get(id)!.callFrame;
          const name = `${cf.functionName || '(anonymous)'} ${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}`;
          minerSelf.set(name, (minerSelf.get(name) ?? 0) + dt);
        }
        else if (o === 'scorer') scorerUs += dt;
      });
      const minerTop = [...minerSelf].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([f, us]): [string, number] => [f, us / 1_000]);
      return { minerMs: minerUs / 1_000, scorerMs: scorerUs / 1_000, totalMs: totalUs / 1_000, minerTop };
    },
  };
}
