/** The contract every `baton <command>` module implements. */
export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Working directory that relative paths resolve against. */
  cwd: string;
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
