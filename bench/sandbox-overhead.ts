// Per-call overhead of the code sandboxes: trivial JavaScript and Python checks evaluated one after
// another once the processes are up (the median and the 90th percentile of each call's wall time),
// then the same Python check for two projects in turn (each project has interpreters of its own), and
// the first call of a further project (an interpreter start). `node bin/run-ts.mjs bench/sandbox-overhead.ts [calls]`.
import { loadavg } from 'node:os';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';

const calls = Number(process.argv[2] ?? 40);
const sandbox = createCodeSandbox({ processes: 2 });
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function measure(language: 'typescript' | 'python', source: string, projects: readonly string[] = ['default']): Promise<string> {
  const run = (i: number) => sandbox.evaluate({ language, source, args: { model_output: `output ${i}` }, timeoutMs: 10_000, project: projects[i % projects.length] });
  // Start-up is not per-call overhead: the first calls start the processes.
  for (let i = 0; i < 3 * projects.length; i++) {
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
  const label = projects.length > 1 ? `${language}, ${projects.length} projects in turn` : language;
  return `${label}: ${calls} calls in ${Math.round(total)} ms; per call median ${quantile(ms, 0.5).toFixed(1)} ms, p90 ${quantile(ms, 0.9).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
}

async function firstCall(project: string, source: string): Promise<string> {
  const t = performance.now();
  const r = await sandbox.evaluate({ language: 'python', source, args: { model_output: 'x' }, timeoutMs: 10_000, project });
  if (!r.ok) throw new Error(`python: ${r.error}`);
  return `python, first call of a new project: ${Math.round(performance.now() - t)} ms`;
}

console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(await measure('typescript', 'export function evaluate(a: { model_output: string }) { return a.model_output.length > 3; }'));
const PYTHON_CHECK = 'def evaluate(model_output):\n    return len(model_output) > 3\n';
console.log(await measure('python', PYTHON_CHECK));
console.log(await measure('python', PYTHON_CHECK, ['project-a', 'project-b']));
console.log(await firstCall('project-c', PYTHON_CHECK));
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await sandbox.close();
