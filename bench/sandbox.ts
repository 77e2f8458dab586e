// The code sandbox under hostile checks: how much memory a check that allocates 4 GB of typed
// arrays reaches in the sandbox processes, and how long 20 units take when one of their two code
// checks never finishes. `npm run bench:sandbox` (Linux: reads /proc); about 10 s.
import { readFileSync, readdirSync } from 'node:fs';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';

/** Resident memory (MB) of every descendant process of this one, summed. */
function childrenRssMb(): number {
  const parentOf = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      parentOf.set(Number(name), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // The process ended while we read.
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, mb] of rss) if (isDescendant(pid)) total += mb;
  return total;
}

const sandbox = createCodeSandbox();
const typedArrays = 'export function evaluate() { const keep: Uint8Array[] = []; for (let i = 0; i < 4; i++) { const a = new Uint8Array(1024 * 1024 * 1024); a.fill(1); keep.push(a); } return keep.length === 4; }';
let peakMb = 0;
const sampler = setInterval(() => (peakMb = Math.max(peakMb, childrenRssMb())), 25);
const started = performance.now();
const bomb = await sandbox.evaluate({ source: typedArrays, language: 'typescript', args: {}, timeoutMs: 10_000 });
clearInterval(sampler);
console.log(`4 x 1 GB Uint8Array: ${JSON.stringify(bomb)} after ${Math.round(performance.now() - started)} ms; peak RSS of the sandbox processes ${Math.round(peakMb)} MB`);

const hang = 'export function evaluate() { return new Promise(() => {}); }';
const good = 'export function evaluate(args: { id: string }) { return args.id.length > 0; }';
const t0 = performance.now();
let lastGoodMs = 0;
const unitMs: number[] = [];
await Promise.all(
  Array.from({ length: 20 }, async (_, i) => {
    const [, g] = await Promise.all([
      sandbox.evaluate({ source: hang, language: 'typescript', args: { id: `u${i}` } }),
      sandbox.evaluate({ source: good, language: 'typescript', args: { id: `u${i}` } }).then((r) => {
        lastGoodMs = Math.max(lastGoodMs, performance.now() - t0);
        return r;
      }),
    ]);
    if (!g.ok) throw new Error(`the good check failed: ${g.error}`);
    unitMs.push(performance.now() - t0);
  }),
);
console.log(`20 units, one check never settles: all 20 units scored after ${Math.round(Math.max(...unitMs))} ms; the other check's 20 scores after ${Math.round(lastGoodMs)} ms`);
const t1 = performance.now();
await Promise.all(Array.from({ length: 20 }, (_, i) => sandbox.evaluate({ source: good, language: 'typescript', args: { id: `u${i}` } })));
console.log(`20 units, the good check alone: ${Math.round(performance.now() - t1)} ms`);
await sandbox.close();
