import type { Command } from '../command.ts';

/** Every CLI command, in the order `baton help` lists them. Add new commands here. */
export const commands: readonly Command[] = [];
