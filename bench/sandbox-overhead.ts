// Per-call overhead of the code sandboxes: trivial JavaScript and Python checks evaluated one after
// another once the processes are up (the median and the 90th percentile of each call's wall time),
// and the CPU the sandbox processes used per call. `node bin/run-ts.mjs bench/sandbox-overhead.ts [calls]`.
import { loadavg } from 'node:os';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';

const calls = Number(process.argv[2] ?? 40);
const sandbox = createCodeSandbox({ processes: 2 });
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function measure(language: 'typescript' | 'python', source: string): Promise<string> {
  const run = (i: number) => sandbox.evaluate({ language, source, args: { model_output: `output ${i}` }, timeoutMs: 10_000 });
  // Start-up is not per-call overhead: the first calls start the processes.
  for (let i = 0; i < 3; i++) {
    const r = await run(i);
    if (!r.ok) throw new Error(`${language}: ${r.error}`);
  }
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const r = await run(i);
    if (!r.ok) throw new Error(`${language}: ${r.error}`);
    ms.push(performance.now() - t);
  }
  const total = performance.now() - t0;
  return `${language}: ${calls} calls in ${Math.round(total)} ms; per call median ${quantile(ms, 0.5).toFixed(1)} ms, p90 ${quantile(ms, 0.9).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
}

console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(await measure('typescript', 'export function evaluate(a: { model_output: string }) { return a.model_output.length > 3; }'));
console.log(await measure('python', 'def evaluate(model_output):\n    return len(model_output) > 3\n'));
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await sandbox.close();
