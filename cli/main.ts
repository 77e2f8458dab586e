import type { CliCommand, CliIo } from './command.ts';
import { commands } from './commands/index.ts';

function helpText(list: readonly CliCommand[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    'tracecheck: scores the live traces of AI agents',
    '',
    'usage: tracecheck <command> [options]',
    '',
    'commands:',
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `tracecheck <command> --help` for a command\'s options. Configuration comes from the',
    'environment (see docs/configuration.md).',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(helpText(commands));
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`tracecheck: unknown command "${name}"\n\n${helpText(commands)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage.trimEnd()}\n`);
    return 0;
  }
  return command.run(rest, io);
}

/** The process entry (bin/tracecheck.mjs): runs a command and sets the exit code. */
export async function runCli(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}
