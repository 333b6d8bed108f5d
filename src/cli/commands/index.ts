import type { Command } from '../command.ts';
import { benchCommand } from './bench.ts';
import { importCommand } from './import.ts';
import { runCommand } from './run.ts';
import { shareCommand } from './share.ts';
import { validateCommand } from './validate.ts';

/** Every CLI command, in the order `baton help` lists them. Add new commands here. */
export const commands: readonly Command[] = [
  benchCommand,
  importCommand,
  runCommand,
  shareCommand,
  validateCommand,
];
