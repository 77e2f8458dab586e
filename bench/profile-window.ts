// CPU profile of one phase of a benchmark, for finding where the time goes (`bench:e2e -- --cpu-prof`):
// the main thread's V8 profile (node:inspector, so only the phase, not start-up), its top functions by
// self time and busy share, and every thread's CPU from /proc (DuckDB's threads, the GC helpers, libuv's
// pool) so that "is the second core used" has an answer; and the whole machine's CPU over the same
// window (every core's busy time; the Kafka broker's and ClickHouse's shares), so that "is the machine
// full, and with what" has one too.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus } from 'node:os';

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

/** User + system CPU seconds from a /proc `stat` file (a process's or a thread's). */
function statCpuSeconds(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

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
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, { name, cpu: statCpuSeconds(`/proc/self/task/${tid}/stat`) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Busy and total jiffies of all cores together (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest is inside user)
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** CPU seconds so far of the other processes whose command line matches a label's pattern. */
function serverTimes(): Map<string, number> {
  const patterns: Array<[string, RegExp]> = [
    ['Kafka broker', /kafka\.Kafka\b/],
    ['ClickHouse server', /clickhouse-server|clickhouse server/],
    ['ZooKeeper', /QuorumPeerMain/],
  ];
  const out = new Map<string, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && d !== String(process.pid));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const label = patterns.find(([, re]) => re.test(cmd))?.[0];
      if (!label) continue;
      out.set(label, (out.get(label) ?? 0) + statCpuSeconds(`/proc/${pid}/stat`));
    } catch {
      // Gone between the listing and the read.
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

/**
 * What a frame's code belongs to, for the by-area table: a service (`services/assembler`), a
 * shared library area (`shared/adapters`), a package (`node_modules/@opentelemetry/*`: the load
 * generator's SDK), the tests' helpers, or V8's own entries ((garbage collector)). Node's built-ins
 * and native frames count for the nearest caller of ours or of a package (a Buffer copy under
 * kafkajs is kafkajs's cost; DuckDB's bindings under the store are the store's).
 */
function areaOf(node: ProfileNode, parentOf: Map<number, ProfileNode>): string {
  for (let at: ProfileNode | undefined = node; at; at = parentOf.get(at.id)) {
    const url = at.callFrame.url.replace(/^file:\/\//, '');
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) return pkg[1].startsWith('@opentelemetry') ? 'node_modules/@opentelemetry/*' : `node_modules/${pkg[1]}`;
    const own = /\/(services\/[^/]+|shared\/[^/]+|cli|bench|test)\//.exec(url);
    if (own) return own[1];
    if (!url && at === node && at.callFrame.functionName.startsWith('(') && at.callFrame.functionName !== '(anonymous)') return at.callFrame.functionName;
  }
  return 'node: and native, no caller of ours';
}

/** Top `n` functions by self time, and the idle share, as markdown. */
export function summarizeProfile(profile: Profile, n: number): string {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parentOf = new Map<number, ProfileNode>();
  for (const x of profile.nodes) for (const child of x.children ?? []) parentOf.set(child, x);
  const self = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    const key = frameName(node, parentOf.get(node.id));
    self.set(key, (self.get(key) ?? 0) + dt);
    const area = areaOf(node, parentOf);
    byArea.set(area, (byArea.get(area) ?? 0) + dt);
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
    '',
    '| area (self time of its code) | ms | share |',
    '|---|---:|---:|',
    ...[...byArea]
      .filter(([k]) => k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .map(([k, us]) => `| ${k} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`),
  ].join('\n');
}

/** Starts profiling now; `stop` writes the .cpuprofile to `file` and returns the summary. */
export async function startProfileWindow(file: string): Promise<{ stop(): Promise<string> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  const threadsBefore = threadTimes();
  const machineBefore = machineTicks();
  const serversBefore = serverTimes();
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      const wall = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const threadsAfter = threadTimes();
      const machineAfter = machineTicks();
      const serversAfter = serverTimes();
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
      const cores = machineAfter && machineBefore ? ((machineAfter.busy - machineBefore.busy) / CLOCK_TICKS) : null;
      const serverDeltas = [...serversAfter].map(([label, after]) => [label, after - (serversBefore.get(label) ?? 0)] as const);
      const servers = serverDeltas.map(([label, s]) => `${label} ${s.toFixed(2)} s`).join('; ');
      const ours = (cpu.user + cpu.system) / 1e6;
      const machine =
        cores === null
          ? 'machine: /proc/stat not readable'
          : `machine: all cores busy ${cores.toFixed(2)} s of ${(wall * cpus().length).toFixed(2)} s (${((100 * cores) / (wall * cpus().length)).toFixed(0)}%): this process ${ours.toFixed(2)} s${servers ? `; ${servers}` : ''}; the rest ${(cores - ours - serverDeltas.reduce((n, [, s]) => n + s, 0)).toFixed(2)} s`;
      return [
        machine,
        `window ${wall.toFixed(2)} s; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (${((cpu.user + cpu.system) / 1e4 / wall).toFixed(0)}% of one core; user ${(cpu.user / 1e6).toFixed(2)} s, system ${(cpu.system / 1e6).toFixed(2)} s)`,
        `threads: ${threads}`,
        summarizeProfile(profile, 15),
        `profile: ${file}`,
      ].join('\n');
    },
  };
}
