#!/usr/bin/env node
// The `tracecheck` command: runs the compiled CLI in dist/ with plain Node (no TypeScript loader).
// `npm run build` makes dist/ (`npm ci` in a checkout runs it through `prepare`); to run the
// sources instead, without building: `npm run dev -- <command> …`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('tracecheck: dist/ is missing: run `npm run build` first (or `npm run dev -- <command>` to run the sources)\n');
  process.exit(1);
}
const { runCli } = await import(entry.href);
await runCli();
