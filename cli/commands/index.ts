import type { CliCommand } from '../command.ts';
import { apiCommand, assemblerCommand, collectorCommand, scorerCommand } from './services.ts';
import { upCommand } from './up.ts';

/** Every `tracecheck` command, in the order `--help` lists them. */
export const commands: readonly CliCommand[] = [upCommand, collectorCommand, assemblerCommand, scorerCommand, apiCommand];
