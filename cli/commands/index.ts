import type { CliCommand } from '../command.ts';

/** Every `tracecheck` command, in the order `--help` lists them. */
export const commands: readonly CliCommand[] = [];
