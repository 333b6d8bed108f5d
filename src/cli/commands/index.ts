import type { Command } from '../command.ts';
import { ablateCommand } from './ablate.ts';
import { benchCommand } from './bench.ts';
import { constructCommand } from './construct.ts';
import { evalCommand } from './eval.ts';
import { evalPolicyCommand } from './eval-policy.ts';
import { exportCommand } from './export.ts';
import { gpuCommand } from './gpu.ts';
import { importCommand } from './import.ts';
import { orchestrateCommand } from './orchestrate.ts';
import { runCommand } from './run.ts';
import { shareCommand } from './share.ts';
import { trainCommand } from './train.ts';
import { validateCommand } from './validate.ts';

/** Every CLI command, in the order `baton help` lists them. Add new commands here. */
export const commands: readonly Command[] = [
  ablateCommand,
  benchCommand,
  constructCommand,
  evalCommand,
  evalPolicyCommand,
  exportCommand,
  gpuCommand,
  importCommand,
  orchestrateCommand,
  runCommand,
  shareCommand,
  trainCommand,
  validateCommand,
];
