import type { CliCommand } from '../command.ts';
import { backfillCommand } from './backfill.ts';
import { checksCommand } from './checks.ts';
import { compareCommand } from './compare.ts';
import { datasetsCommand } from './datasets.ts';
import { demoCommand } from './demo.ts';
import { evalCommand } from './eval.ts';
import { keysCommand } from './keys.ts';
import { modelServerCommand } from './model-server.ts';
import { scoreCommand } from './score.ts';
import { alerterCommand, apiCommand, assemblerCommand, collectorCommand, scorerCommand } from './services.ts';
import { upCommand } from './up.ts';

/** Every `tracecheck` command, in the order `--help` lists them. */
export const commands: readonly CliCommand[] = [
  upCommand,
  collectorCommand,
  assemblerCommand,
  scorerCommand,
  apiCommand,
  alerterCommand,
  keysCommand,
  scoreCommand,
  checksCommand,
  backfillCommand,
  evalCommand,
  datasetsCommand,
  compareCommand,
  modelServerCommand,
  demoCommand,
];
