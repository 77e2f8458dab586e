#!/usr/bin/env node
// `npm run dev -- <command> …`: the CLI from the TypeScript sources through tsx (a dev dependency),
// so a checkout can run a change without `npm run build`. Not part of the package.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../cli/main.ts');
await runCli();
