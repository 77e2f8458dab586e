/** Where a command reads and writes; tests pass their own streams. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
}

/** One `tracecheck <name>` command. `run` resolves to the process exit code. */
export interface CliCommand {
  name: string;
  /** One line for `tracecheck --help`. */
  summary: string;
  /** Full usage text for `tracecheck <name> --help`. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
