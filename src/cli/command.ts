/** The contract every `baton <command>` module implements. */
export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Working directory that relative paths resolve against. */
  cwd: string;
  /** Clock for the times written into files (default: the system clock; tests pin it). */
  now?: () => Date;
}

export interface Command {
  /** First word(s) after `baton`, e.g. `import` or `share`. */
  name: string;
  /** One line for `baton help`. */
  summary: string;
  /** Longer usage text printed by `baton help <name>` and on usage errors. */
  usage: string;
  /** Returns the process exit code. Never throws for bad input: report it through `io.err`. */
  run: (args: string[], io: CliIO) => Promise<number>;
}

type Parsed = { ok: true } | { ok: false; message: string };

/**
 * The start every command shares: `--help`/`-h` prints the usage (exit 0); arguments that do not
 * parse print the problem and the usage (exit 2). Returns the parsed arguments, or the exit code.
 */
export function parseCommandArgs<P extends Parsed>(
  name: string,
  args: string[],
  usage: string,
  parse: (args: string[]) => P,
  io: CliIO,
): Extract<P, { ok: true }> | number {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(usage);
    return 0;
  }
  const p: Parsed = parse(args);
  if (!p.ok) {
    io.err(`baton ${name}: ${p.message}`);
    io.err(usage);
    return 2;
  }
  return p as Extract<P, { ok: true }>;
}
