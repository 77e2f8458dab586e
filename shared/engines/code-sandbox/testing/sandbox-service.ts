// A service holding the code sandbox, as the pipeline does: started by the shutdown tests, it starts
// two evaluations that never end (a loop, a promise that never settles) asking for TIMEOUT_MS,
// prints the sandbox processes' ids as one JSON line, and stops its components in reverse on
// SIGTERM (shared/runtime/lifecycle). With `drain`, a component in front waits for the evaluations in
// flight before the sandbox is closed, as the scorer drains its units.
// Usage: sandbox-service.ts TIMEOUT_MS [drain]
import { createLogger } from '../../../runtime/logging/index.ts';
import { createComponent, runService } from '../../../runtime/lifecycle/index.ts';
import { createCodeSandbox } from '../create-code-sandbox.ts';

const timeoutMs = Number(process.argv[2] ?? 10_000);
const drain = process.argv[3] === 'drain';
const log = createLogger({ level: 'silent' });
const sandbox = createCodeSandbox({ processes: 3 });
const hung = Promise.all(
  ['export function evaluate() { for (;;) {} }', 'export function evaluate() { return new Promise(() => {}); }'].map((source) =>
    sandbox.evaluate({ source, language: 'typescript', args: {}, timeoutMs }),
  ),
);
const waitForPids = async (): Promise<number[]> => {
  for (;;) {
    if (sandbox.pids().length === 2) return sandbox.pids();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const pids = await waitForPids();
// Let both evaluations reach their processes before announcing them.
await new Promise((resolve) => setTimeout(resolve, 300));
const running = runService(
  [
    createComponent('code-sandbox', { start: () => Promise.resolve(), stop: () => sandbox.close() }),
    ...(drain ? [createComponent('drain', { start: () => Promise.resolve(), stop: async () => void (await hung) })] : []),
  ],
  log,
);
// Announced only once runService listens for SIGTERM: the tests send it as soon as they read this
// line, and one that came earlier would kill the process by Node's default (exit code null), not stop it.
while (process.listenerCount('SIGTERM') === 0) await new Promise((resolve) => setTimeout(resolve, 10));
process.stdout.write(`${JSON.stringify({ pids })}\n`);
await running;
process.stdout.write(`${JSON.stringify({ results: await hung })}\n`);
