// CPU profile of one phase of a benchmark, for finding where the time goes (`bench:e2e -- --cpu-prof`):
// the main thread's V8 profile (node:inspector, so only the phase, not start-up), its top functions by
// self time and busy share, and every thread's CPU from /proc (DuckDB's threads, the GC helpers, libuv's
// pool) so that "is the second core used" has an answer.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const CLOCK_TICKS = 100;

/** CPU seconds of each thread of this process, by thread id (Linux; empty elsewhere). */
function threadTimes(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { name, cpu: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

function frameName(node: ProfileNode, parent: ProfileNode | undefined): string {
  const cf = node.callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/^.*?\/(?=(services|shared|cli|bench|test|node_modules)\/)/, '');
  if (url) return `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
  // A native frame (zlib's writeSync, DuckDB's bindings) says little alone: its caller is named.
  if (cf.functionName.startsWith('(') && cf.functionName !== '(anonymous)') return cf.functionName;
  return `${cf.functionName || '(native)'} ← ${parent ? frameName(parent, undefined) : '?'}`;
}

/** Top `n` functions by self time, and the idle share, as markdown. */
export function summarizeProfile(profile: Profile, n: number): string {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parentOf = new Map<number, ProfileNode>();
  for (const x of profile.nodes) for (const child of x.children ?? []) parentOf.set(child, x);
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    const key = frameName(node, parentOf.get(node.id));
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  const idle = self.get('(idle)') ?? 0;
  const pct = (us: number): string => `${((100 * us) / total).toFixed(1)}%`;
  const rows = [...self]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us], i) => `| ${i + 1} | ${(us / 1000).toFixed(0)} | ${pct(us)} | \`${k}\` |`);
  return [
    `main thread: ${(total / 1000).toFixed(0)} ms profiled, busy ${pct(total - idle)}, idle ${pct(idle)}`,
    '',
    '| # | self ms | share | function |',
    '|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/** Starts profiling now; `stop` writes the .cpuprofile to `file` and returns the summary. */
export async function startProfileWindow(file: string): Promise<{ stop(): Promise<string> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  const threadsBefore = threadTimes();
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      const wall = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const threadsAfter = threadTimes();
      session.disconnect();
      writeFileSync(file, JSON.stringify(profile));
      // Node's and DuckDB's threads are all named "node": each is listed by its id.
      const byThread = new Map<string, number>();
      for (const [tid, after] of threadsAfter) {
        const used = after.cpu - (threadsBefore.get(tid)?.cpu ?? 0);
        byThread.set(tid === String(process.pid) ? 'main' : `${after.name}#${tid}`, used);
      }
      const threads = [...byThread]
        .filter(([, s]) => s >= 0.01)
        .sort((a, b) => b[1] - a[1])
        .map(([name, s]) => `${name} ${s.toFixed(2)} s (${((100 * s) / wall).toFixed(0)}% of a core)`)
        .join('; ');
      return [
        `window ${wall.toFixed(2)} s; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (${((cpu.user + cpu.system) / 1e4 / wall).toFixed(0)}% of one core; user ${(cpu.user / 1e6).toFixed(2)} s, system ${(cpu.system / 1e6).toFixed(2)} s)`,
        `threads: ${threads}`,
        summarizeProfile(profile, 15),
        `profile: ${file}`,
      ].join('\n');
    },
  };
}
