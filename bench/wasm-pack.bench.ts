/**
 * What packing each weight once per update saves: whole training iterations (default config, fast
 * path, wasm backend) with the weight packs on and off, alternating iteration by iteration on the
 * same trainer, so both see the same load and the same work (the packs do not change any result).
 * "Off" replaces `WasmArena.packedB` with one that never packs, so every product packs its B
 * itself as before. Prints sampling (rollout) and learner (update) wall ms and the process CPU ms
 * per iteration for each. Run: `npx tsx bench/wasm-pack.bench.ts` (ITERS=8 by default).
 */
import { loadavg } from 'node:os';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { WasmArena } from '../src/gpu/wasm/kernels.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Trainer, trainConfig } from '../src/train/index.ts';

const ITERS = Number(process.env.ITERS ?? 8);
let packsOff = false;
const packedB = WasmArena.prototype.packedB;
WasmArena.prototype.packedB = function (this: WasmArena, ...args: Parameters<typeof packedB>): number {
  return packsOff ? -1 : packedB.apply(this, args);
};

const config = trainConfig({ preset: 'mixed', seed: 0 });
const t = await Trainer.create({
  start: priorCheckpoint(DEFAULT_POOL),
  pool: DEFAULT_POOL,
  config,
  choice: { backend: 'wasm', reason: 'benchmark', adapter: null, ctx: null },
  runners: simulatedRunners,
  sampling: 'batched',
  clock: () => performance.now(),
});
const load0 = loadavg()[0] ?? 0;
await t.iterate();
const acc = {
  on: { rollout: 0, update: 0, wall: 0, cpu: 0, n: 0 },
  off: { rollout: 0, update: 0, wall: 0, cpu: 0, n: 0 },
};
for (let i = 0; i < 2 * ITERS; i++) {
  packsOff = i % 2 === 1;
  const a = packsOff ? acc.off : acc.on;
  const [t0, u0] = [performance.now(), process.cpuUsage()];
  const m = await t.iterate();
  const u = process.cpuUsage(u0);
  a.wall += performance.now() - t0;
  a.cpu += (u.user + u.system) / 1000;
  a.rollout += m.timings?.rolloutMs ?? 0;
  a.update += m.timings?.updateMs ?? 0;
  a.n++;
}
t.dispose();
const per = (x: number, n: number): string => (x / n).toFixed(0);
const lines = [
  `load average ${load0.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}; ${ITERS} iterations each, ${config.tasksPerIteration * config.groupSize} episodes per iteration`,
  '| weight packs | sampling ms/iteration | learner ms/iteration | wall ms/iteration | CPU ms/iteration |',
  '|---|---:|---:|---:|---:|',
  ...(['on', 'off'] as const).map((k) => {
    const a = acc[k];
    return `| ${k === 'on' ? 'once per update' : 'per product (as before)'} | ${per(a.rollout, a.n)} | ${per(a.update, a.n)} | ${per(a.wall, a.n)} | ${per(a.cpu, a.n)} |`;
  }),
  `CPU time, per product / once per update: ${(acc.off.cpu / acc.on.cpu).toFixed(2)}×`,
];
process.stdout.write(`${lines.join('\n')}\n`);
