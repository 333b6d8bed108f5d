import type { CliIO, Command } from './command.ts';
import { commands } from './commands/index.ts';

function help(io: CliIO, list: readonly Command[]): void {
  io.out('baton — multi-agent-system orchestration playground (command line)');
  io.out('');
  io.out('Usage: baton <command> [options]');
  io.out('');
  for (const c of list) io.out(`  ${c.name.padEnd(12)} ${c.summary}`);
  io.out('');
  io.out('Run `baton help <command>` for the options of one command.');
}

export async function main(argv: string[], io: CliIO, list: readonly Command[] = commands): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0] !== undefined ? list.find((c) => c.name === rest[0]) : undefined;
    if (topic) io.out(topic.usage);
    else help(io, list);
    return 0;
  }
  const command = list.find((c) => c.name === name);
  if (!command) {
    io.err(`baton: unknown command "${name}".`);
    help(io, list);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    io.err(`baton ${name}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
