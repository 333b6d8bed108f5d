/**
 * Seeded initial weights for the tiny model: GPT-2's scheme (normal(0, 0.02) for embeddings and
 * matrices, residual projections scaled by 1/sqrt(2·nLayer), LayerNorm gains 1, biases 0). Random
 * weights are a starting point for training and a test fixture, never a shipped model.
 */
import { createRng } from '../core/rng.ts';
import { paramSpecs, type TinyGptConfig, type TinyGptWeights } from './spec.ts';

export function initWeights(config: TinyGptConfig, seed: number): TinyGptWeights {
  const rng = createRng(seed);
  // Box–Muller: a standard normal from two uniforms.
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const params = new Map<string, Float32Array>();
  for (const s of paramSpecs(config)) {
    const n = s.shape.reduce((a, b) => a * b, 1);
    const a = new Float32Array(n);
    if (s.name.endsWith('.g')) a.fill(1);
    else if (s.shape.length === 2) {
      const residual = s.name.endsWith('attn.o.w') || s.name.endsWith('mlp.proj.w');
      const std = 0.02 / (residual ? Math.sqrt(2 * config.nLayer) : 1);
      for (let i = 0; i < n; i++) a[i] = normal() * std;
    }
    params.set(s.name, a);
  }
  return { config, params };
}
