/**
 * The tiny model's ONNX files in Chromium with onnxruntime-web (the runtime transformers.js uses in
 * the browser), on the `wasm` and `webgpu` execution providers (WebGPU on SwiftShader): every dtype
 * loads, and the logits of a prompt and of one more token through the returned KV cache match the
 * reference forward pass on the weights the file stores. It serves onnxruntime-web's own files and
 * the models from a local server, so nothing is fetched from a CDN. onnxruntime places nodes an
 * execution provider lacks on the CPU; the test reads its verbose log and holds the WebGPU runs to
 * the mask's shape arithmetic on the CPU and everything heavy (Gather, MatMul, MatMulNBits,
 * DequantizeLinear, LayerNormalization, Softmax) on WebGPU. Then transformers.js' own browser build
 * loads a whole model folder from the same server (`from_pretrained`, remote models off) on both
 * devices, and greedy `generate` gives the reference's tokens.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TinyGptConfigSchema,
  dequantizedWeights,
  greedy,
  exportTinyGptOnnx,
  forward,
  initWeights,
} from '../../src/lm/index.ts';
import { FIXTURE_EOS, tinyModelFiles, writeFolder } from '../support/tiny-model.ts';
import { launch } from './browser.ts';
import { serveStatic } from './static-server.ts';

const config = TinyGptConfigSchema.parse({ vocabSize: 50, nPositions: 16, nEmbd: 64, nHead: 2, nLayer: 2 });
const weights = initWeights(config, 3);
const DTYPES = ['fp32', 'q8', 'q4'] as const;
const PROMPT = [7, 1, 44, 30, 2];
const NEXT = 19;

const tiny = tinyModelFiles({ seed: 4 });

/**
 * The page's side of the transformers.js test: its self-contained browser build, the model folder
 * from this server in the hub's layout (`/models/tiny/…`), onnxruntime-web's files from here too.
 */
const GENERATE_SCRIPT = `
import { AutoModelForCausalLM, Tensor, env } from '/tjs/transformers.min.js';
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = '/models/';
env.useBrowserCache = false;
env.backends.onnx.wasm.wasmPaths = location.origin + '/ort/';
env.backends.onnx.wasm.numThreads = 1;
window.generateTiny = async ({ device, dtype, prompt, maxNew }) => {
  const model = await AutoModelForCausalLM.from_pretrained('tiny', { device, dtype });
  try {
    const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
    const out = await model.generate({ input_ids, max_new_tokens: maxNew, do_sample: false });
    return Array.from(out.data, Number);
  } finally {
    await model.dispose();
  }
};
`;

let root = '';
let server: Server | undefined;
let url = '';
let browser: Browser | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-onnx-web-'));
  symlinkSync(resolve('node_modules/onnxruntime-web/dist'), join(root, 'ort'));
  mkdirSync(join(root, 'models'));
  for (const dtype of DTYPES)
    writeFileSync(join(root, 'models', `${dtype}.onnx`), exportTinyGptOnnx(weights, { dtype }));
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><title>onnx</title><script type="module" src="/run.mjs"></script>',
  );
  writeFileSync(join(root, 'run.mjs'), PAGE_SCRIPT);
  symlinkSync(resolve('node_modules/@huggingface/transformers/dist'), join(root, 'tjs'));
  writeFolder(join(root, 'models', 'tiny'), tiny.files);
  writeFileSync(
    join(root, 'generate.html'),
    '<!doctype html><title>generate</title><script type="module" src="/generate.mjs"></script>',
  );
  writeFileSync(join(root, 'generate.mjs'), GENERATE_SCRIPT);
  ({ url, server } = await serveStatic(root));
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  if (root) rmSync(root, { recursive: true, force: true });
});

interface PageResult {
  prompt: number[];
  next: number[];
  presentDims: number[];
}

/** The page's side: load one file on one execution provider, run the prompt, then one token with the cache. */
const PAGE_SCRIPT = `
import * as ort from '/ort/ort.webgpu.min.mjs';
ort.env.wasm.wasmPaths = location.origin + '/ort/';
ort.env.wasm.numThreads = 1;
window.runTiny = async ({ ep, dtype, prompt, next, nLayer, nHead, hd }) => {
  const bytes = new Uint8Array(await (await fetch('/models/' + dtype + '.onnx')).arrayBuffer());
  const session = await ort.InferenceSession.create(bytes, { executionProviders: [ep], logSeverityLevel: 0, logVerbosityLevel: 0 });
  const i64 = (xs) => new ort.Tensor('int64', BigInt64Array.from(xs.map(BigInt)), [1, xs.length]);
  const run = (ids, past, total) => {
    const feeds = {
      input_ids: i64(ids),
      attention_mask: i64(Array.from({ length: total }, () => 1)),
      position_ids: i64(ids.map((_, i) => total - ids.length + i)),
    };
    for (let l = 0; l < nLayer; l++) {
      for (const kind of ['key', 'value']) {
        feeds['past_key_values.' + l + '.' + kind] =
          past?.['present.' + l + '.' + kind] ?? new ort.Tensor('float32', new Float32Array(0), [1, nHead, 0, hd]);
      }
    }
    return session.run(feeds);
  };
  const first = await run(prompt, null, prompt.length);
  const second = await run([next], first, prompt.length + 1);
  return {
    prompt: Array.from(await first.logits.getData()),
    next: Array.from(await second.logits.getData()),
    presentDims: [...second['present.1.value'].dims],
  };
};
`;

describe.each(['wasm', 'webgpu'] as const)('tiny model in Chromium, onnxruntime-web %s', (ep) => {
  it.each(DTYPES)('%s: prompt and cached step give the reference logits', async (dtype) => {
    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    const log: string[] = [];
    page.on('console', (m) => log.push(m.text()));
    await page.goto(`${url}index.html`);
    await page.waitForFunction(() => 'runTiny' in window);
    const result = await page.evaluate(
      (args) => (window as unknown as { runTiny: (a: unknown) => Promise<PageResult> }).runTiny(args),
      { ep, dtype, prompt: PROMPT, next: NEXT, nLayer: config.nLayer, nHead: config.nHead, hd: 32 },
    );
    await context.close();

    const ref = dequantizedWeights(weights, dtype);
    const whole = forward(ref, [...PROMPT, NEXT]);
    const V = config.vocabSize;
    const maxDiff = (a: number[], b: Float32Array): number =>
      a.reduce((m, v, i) => Math.max(m, Math.abs(v - (b[i] as number))), 0);
    // q8 at onnxruntime's default optimization level runs 8-bit MatMulNBits (see src/lm/onnx/gpt2.test.ts): 5e-3.
    const tol = dtype === 'q8' ? 5e-3 : 1e-4;
    expect(result.prompt.length).toBe(PROMPT.length * V);
    expect(maxDiff(result.prompt, whole.subarray(0, PROMPT.length * V))).toBeLessThan(tol);
    expect(maxDiff(result.next, whole.subarray(PROMPT.length * V))).toBeLessThan(tol);
    expect(result.presentDims).toEqual([1, config.nHead, PROMPT.length + 1, 32]);
    if (ep === 'webgpu') {
      // onnxruntime's verbose log lists each provider's nodes after "Node(s) placed on [<provider>]".
      const placed: Record<string, string[]> = {};
      let current = '';
      for (const line of log) {
        const group = /Node\(s\) placed on \[(\w+)\]/.exec(line);
        const node = /VerifyEachNodeIsAssignedToAnEp\]\s+(\w+) \(/.exec(line);
        if (group) current = group[1] as string;
        else if (node && current) (placed[current] ??= []).push(node[1] as string);
      }
      const onCpu = [...new Set(placed['CPUExecutionProvider'] ?? [])];
      const onGpu = new Set(placed['WebGpuExecutionProvider'] ?? []);
      console.info(
        `webgpu ${dtype}: ${onGpu.size} op kinds on WebGPU; on the CPU: ${onCpu.join(', ') || 'none'}`,
      );
      // Only the mask's shape arithmetic may run on the CPU.
      expect(
        onCpu.every((op) =>
          ['Shape', 'Sub', 'Squeeze', 'Range', 'Unsqueeze', 'Greater', 'Cast'].includes(op),
        ),
      ).toBe(true);
      for (const op of ['Gather', 'MatMul', 'Softmax', 'LayerNormalization', 'Concat', 'Where'])
        expect(onGpu).toContain(op);
      if (dtype === 'q8') expect(onGpu).toContain('DequantizeLinear');
      if (dtype === 'q4') expect(onGpu).toContain('MatMulNBits');
    }
  });
});

describe.each(['wasm', 'webgpu'] as const)('transformers.js in Chromium, device %s', (device) => {
  it.each(DTYPES)(
    '%s: from_pretrained loads the folder and greedy generate gives the reference tokens',
    async (dtype) => {
      const context = await (browser as Browser).newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${url}generate.html`);
      await page.waitForFunction(() => 'generateTiny' in window);
      const prompt = [3, 14, 15, 9, 26];
      const ids = await page.evaluate(
        (args) =>
          (window as unknown as { generateTiny: (a: unknown) => Promise<number[]> }).generateTiny(args),
        { device, dtype, prompt, maxNew: 12 },
      );
      await context.close();
      expect(errors).toEqual([]);
      expect(ids.slice(0, prompt.length)).toEqual(prompt);
      const expected = greedy(dequantizedWeights(tiny.weights, dtype), prompt, 12, FIXTURE_EOS);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids.slice(prompt.length)).toEqual(expected);
    },
  );
});
