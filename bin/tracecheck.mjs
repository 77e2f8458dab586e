#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step), so `npx tracecheck` works in a checkout.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../cli/main.ts');
await runCli();
