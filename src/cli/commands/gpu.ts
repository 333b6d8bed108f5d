import type { CliIO, Command } from '../command.ts';
import { nodeGpu, releaseNodeGpu } from '../../gpu/node-gpu.ts';
import { checkSubgroups, chooseBackend, describeAdapter } from '../../gpu/index.ts';
import type { BackendPreference } from '../../gpu/index.ts';

const USAGE = `Usage: baton gpu info [--backend cpu|wasm|webgpu|auto]

Reports the WebGPU adapter (vendor, architecture, whether it is a software fallback, features,
limits), on WebGPU whether the subgroup twins gave their kernels' bits on this driver, and
which compute backend Baton uses for the policy and the trainer, and why.
  --backend auto    (default) WebGPU on a hardware adapter, else WebAssembly SIMD (wasm), else cpu
  --backend webgpu  force WebGPU (fails without an adapter)
  --backend wasm    force the WebAssembly SIMD backend
  --backend cpu     force the TypeScript CPU backend`;

function parse(args: string[]): { prefer: BackendPreference } | string {
  const [sub, ...rest] = args;
  if (sub !== 'info') return `unknown or missing subcommand${sub ? ` "${sub}"` : ''}`;
  let prefer: BackendPreference = 'auto';
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value =
      a === '--backend' ? rest[++i] : a?.startsWith('--backend=') ? a.slice('--backend='.length) : undefined;
    if (value === undefined) return `unknown option "${a ?? ''}"`;
    if (value !== 'auto' && value !== 'cpu' && value !== 'wasm' && value !== 'webgpu')
      return `--backend must be cpu, wasm, webgpu or auto, got "${value}"`;
    prefer = value;
  }
  return { prefer };
}

async function info(prefer: BackendPreference, io: CliIO): Promise<number> {
  const gpu = prefer === 'cpu' || prefer === 'wasm' ? undefined : await nodeGpu();
  let choice;
  try {
    choice = await chooseBackend(prefer, { gpu });
  } catch (e) {
    io.err(`baton gpu: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const a = choice.adapter;
  if (a) {
    io.out(`adapter:           ${describeAdapter(a)}`);
    io.out(`vendor:            ${a.vendor || '-'}`);
    io.out(`architecture:      ${a.architecture || '-'}`);
    io.out(`device:            ${a.device || '-'}`);
    io.out(`description:       ${a.description || '-'}`);
    io.out(`isFallbackAdapter: ${a.isFallbackAdapter}`);
    io.out(`software:          ${a.software}`);
    io.out(`features:          ${a.features.join(', ') || '-'}`);
    for (const [k, v] of Object.entries(a.limits)) io.out(`limit ${k}: ${v}`);
  } else if (prefer !== 'cpu' && prefer !== 'wasm') {
    io.out('adapter:           none');
  }
  // The subgroup twins' check runs on the device the choice holds (WebGPU only).
  if (choice.ctx) io.out(`subgroup twins:    ${await checkSubgroups(choice.ctx)}`);
  io.out(`backend:           ${choice.backend} (${choice.reason})`);
  choice.ctx?.dispose();
  return 0;
}

export const gpuCommand: Command = {
  name: 'gpu',
  summary: 'Show the WebGPU adapter and the compute backend Baton picks',
  usage: USAGE,
  run: async (args, io) => {
    const parsed = parse(args);
    if (typeof parsed === 'string') {
      io.err(`baton gpu: ${parsed}`);
      io.err(USAGE);
      return 2;
    }
    try {
      return await info(parsed.prefer, io);
    } finally {
      releaseNodeGpu();
    }
  },
};
