/**
 * The model manifest (`models/manifest.json`): which orchestrator models Baton offers, where their
 * files are, what each one offers (dtypes, size, licence, expected speed) and how it is prompted.
 * The manifest is data the app downloads, so it is parsed like any other input: every entry is
 * checked and a bad one is explained (and skipped), never trusted.
 *
 * A model the user names is resolved here too (`resolveModel`): a manifest id, a hub id
 * (`owner/name`), a URL of a model folder (including a hub `…/resolve/<revision>/` URL) or, in
 * Node, a folder on disk. The result, a `ModelSource`, says where transformers.js finds the files.
 */
import { z } from 'zod';
import { fail, ok, type Problem, type Result } from '../core/result.ts';
import { describe } from '../core/errors.ts';

export const MANIFEST_FORMAT = 'baton.models/1';

/** The dtypes transformers.js knows and the file suffix of each (`onnx/model<suffix>.onnx`). */
export const DTYPE_SUFFIX = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
} as const;
export const DtypeSchema = z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4']);
export type Dtype = z.infer<typeof DtypeSchema>;

/** Dtypes whose kernels need 16-bit floats on the GPU (WebGPU's `shader-f16`). */
export const F16_DTYPES: readonly Dtype[] = ['fp16', 'q4f16'];

/**
 * How the model is prompted: `chat` applies the tokenizer's chat template to Baton's orchestrator
 * messages (src/interop/orchestrator-prompt.ts); `tiny` is the project model's own short format.
 */
export const PromptFormatSchema = z.enum(['chat', 'tiny']);
export type PromptFormat = z.infer<typeof PromptFormatSchema>;

const HUB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
/** A hub id as transformers.js accepts it (`owner/name`, no `..` or `--`). */
export const isHubId = (s: string): boolean => HUB_ID.test(s) && !s.includes('..') && !s.includes('--');

const text = (max: number) => z.string().max(max);

export const ModelEntrySchema = z
  .object({
    /** What the UI and `--model` call it: letters, digits, `.`, `_`, `-`. */
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'ids use letters, digits, . _ - only'),
    label: text(200).min(1),
    /**
     * Where the files are: `local` = this build's `/models/<folder>/` (works offline); `hub` = a
     * Hugging Face hub repo (`owner/name`, online).
     */
    source: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('local'),
        folder: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'a folder name under models/'),
      }),
      z.object({
        kind: z.literal('hub'),
        repo: z.string().refine(isHubId, 'a hub id is owner/name'),
        revision: z
          .string()
          .regex(/^[A-Za-z0-9._-]{1,80}$/)
          .default('main'),
      }),
    ]),
    /** The dtypes the repo has files for, best first (the default is the first the device suits). */
    dtypes: z.array(DtypeSchema).min(1).max(8),
    promptFormat: PromptFormatSchema,
    /** Parameters, millions. */
    paramsM: z.number().positive().max(1_000_000),
    /** Download size per dtype, MB, where it is known (else `estimateSizeMB` estimates it). */
    sizeMB: z.partialRecord(DtypeSchema, z.number().positive().max(100_000)).default({}),
    license: text(80).min(1),
    /** A rough decode speed for a user to expect, e.g. "~20 tok/s on a laptop GPU (webgpu)". */
    expectedSpeed: text(200).optional(),
    /** Emits a reasoning block before its answer (the thinking channel is long). */
    reasoning: z.boolean().default(false),
    /** Tokens to generate at most. */
    maxNewTokens: z.number().int().min(16).max(32_768).default(1024),
    description: text(2000).optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (new Set(e.dtypes).size !== e.dtypes.length)
      ctx.addIssue({ code: 'custom', path: ['dtypes'], message: 'a dtype is listed twice' });
    for (const d of Object.keys(e.sizeMB))
      if (!e.dtypes.includes(d as Dtype))
        ctx.addIssue({
          code: 'custom',
          path: ['sizeMB', d],
          message: `size given for ${d}, which dtypes does not list`,
        });
  });
export type ModelEntry = z.output<typeof ModelEntrySchema>;

export const ManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  /** The entry used when none is chosen (the offline model). */
  default: z.string().max(80),
  models: z.array(z.unknown()).min(1).max(200),
});

export interface Manifest {
  default: string;
  models: ModelEntry[];
}

/** The manifest's size limit, bytes. */
export const MAX_MANIFEST_BYTES = 512 * 1024;

const issueText = (e: z.ZodError): string =>
  e.issues
    .slice(0, 4)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');

/**
 * Reads a manifest. A malformed file fails; a bad entry is left out with a warning that names it and
 * says what is wrong, so one typo does not take the other models away. A duplicate id or a default
 * that names no good entry is an error.
 */
export function parseManifest(json: unknown): Result<Manifest> {
  if (typeof json === 'string') {
    if (json.length > MAX_MANIFEST_BYTES)
      return fail({
        code: 'E_MODEL_MANIFEST',
        message: describe('E_MODEL_MANIFEST', `larger than ${MAX_MANIFEST_BYTES} bytes`),
      });
    try {
      json = JSON.parse(json) as unknown;
    } catch (e) {
      return fail({
        code: 'E_MODEL_MANIFEST',
        message: describe('E_MODEL_MANIFEST', `not JSON (${e instanceof Error ? e.message : String(e)})`),
      });
    }
  }
  const top = ManifestSchema.safeParse(json);
  if (!top.success)
    return fail({ code: 'E_MODEL_MANIFEST', message: describe('E_MODEL_MANIFEST', issueText(top.error)) });
  const warnings: Problem[] = [];
  const models: ModelEntry[] = [];
  top.data.models.forEach((raw, i) => {
    const entry = ModelEntrySchema.safeParse(raw);
    const name =
      typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string'
        ? `"${String((raw as { id: string }).id).slice(0, 80)}"`
        : `#${i + 1}`;
    if (!entry.success) {
      warnings.push({
        code: 'E_MODEL_MANIFEST',
        message: describe('E_MODEL_MANIFEST', `model ${name} is left out: ${issueText(entry.error)}`),
        path: `models[${i}]`,
      });
      return;
    }
    if (models.some((m) => m.id === entry.data.id)) {
      warnings.push({
        code: 'E_MODEL_MANIFEST',
        message: describe('E_MODEL_MANIFEST', `model ${name} is left out: its id is used twice`),
        path: `models[${i}].id`,
      });
      return;
    }
    models.push(entry.data);
  });
  if (!models.some((m) => m.id === top.data.default))
    return fail({
      code: 'E_MODEL_MANIFEST',
      message: describe(
        'E_MODEL_MANIFEST',
        `the default model "${top.data.default.slice(0, 80)}" is not a usable entry`,
      ),
      path: 'default',
    });
  return ok({ default: top.data.default, models }, warnings);
}

/**
 * Where transformers.js finds a model's files. `repo` is what `from_pretrained` is given;
 * `remoteHost` + `remotePathTemplate` (its hub URL layout, `{model}/resolve/{revision}/`) build the
 * file URLs for `hub` and `url` sources; `local` reads `<localRoot><repo>/<file>` (a URL path in the
 * browser, a folder in Node).
 */
export type ModelSource =
  | { kind: 'local'; repo: string; localRoot: string; entry: ModelEntry | null }
  | {
      kind: 'remote';
      repo: string;
      revision: string;
      remoteHost: string;
      remotePathTemplate: string;
      entry: ModelEntry | null;
    };

export interface ResolveOptions {
  /** `env.remoteHost` for hub ids (default the Hugging Face hub; tests point it at a local server). */
  hubHost?: string;
  /** Where `local` entries' folders are: `/models/` in the browser, `<repo>/models/` in Node. */
  localRoot: string;
  /** Node only: a spec that is an existing folder is loaded from disk. */
  isFolder?: (spec: string) => boolean;
}

export const HF_HOST = 'https://huggingface.co/';

/** What an unknown model gets: the chat format and the dtypes every export has. */
function adHocEntry(name: string, label: string, repo?: string): ModelEntry {
  const id =
    name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 80) || 'model';
  return ModelEntrySchema.parse({
    id,
    label: label.slice(0, 200),
    source: repo ? { kind: 'hub', repo } : { kind: 'local', folder: id },
    dtypes: ['q4', 'q8', 'fp32'],
    promptFormat: 'chat',
    paramsM: 1,
    license: 'unknown',
  });
}

const slash = (s: string): string => (s.endsWith('/') ? s : `${s}/`);

/**
 * Resolves `--model` / the UI's model field: a manifest id, a hub id, a URL or (Node) a folder.
 * Anything else is an `E_MODEL_SPEC` error saying what is accepted.
 */
export function resolveModel(
  spec: string,
  manifest: Manifest | null,
  o: ResolveOptions,
): Result<ModelSource> {
  const s = spec.trim();
  if (s.length === 0 || s.length > 2000)
    return fail({
      code: 'E_MODEL_SPEC',
      message: describe('E_MODEL_SPEC', 'the model name is empty or too long'),
    });
  const entry = manifest?.models.find((m) => m.id === s);
  if (entry) {
    if (entry.source.kind === 'local')
      return ok({ kind: 'local', repo: entry.source.folder, localRoot: slash(o.localRoot), entry });
    return ok({
      kind: 'remote',
      repo: entry.source.repo,
      revision: entry.source.revision,
      remoteHost: slash(o.hubHost ?? HF_HOST),
      remotePathTemplate: '{model}/resolve/{revision}/',
      entry,
    });
  }
  if (/^https?:\/\//i.test(s)) {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return fail({
        code: 'E_MODEL_SPEC',
        message: describe('E_MODEL_SPEC', `"${s.slice(0, 200)}" is not a URL`),
      });
    }
    if (url.username || url.password)
      return fail({
        code: 'E_MODEL_SPEC',
        message: describe('E_MODEL_SPEC', 'a model URL may not carry a user name or password'),
      });
    url.search = '';
    url.hash = '';
    // A hub layout URL: <host>/<owner>/<name>/resolve/<revision>/
    const hub = /^\/(.*\/)?([^/]+)\/([^/]+)\/resolve\/([^/]+)\/?$/.exec(url.pathname);
    if (hub && isHubId(`${hub[2]}/${hub[3]}`)) {
      const host = `${url.origin}/${hub[1] ?? ''}`;
      return ok({
        kind: 'remote',
        repo: `${hub[2]}/${hub[3]}`,
        revision: decodeURIComponent(hub[4] as string),
        remoteHost: host,
        remotePathTemplate: '{model}/resolve/{revision}/',
        entry: adHocEntry(`${hub[2]}-${hub[3]}`, `${hub[2]}/${hub[3]}`, `${hub[2]}/${hub[3]}`),
      });
    }
    // Any other folder URL: its files are <url>/<file>. transformers.js still wants an owner/name
    // id; the template ignores it.
    return ok({
      kind: 'remote',
      repo: 'url/model',
      revision: 'main',
      remoteHost: slash(url.href),
      remotePathTemplate: '',
      entry: adHocEntry(url.pathname.split('/').filter(Boolean).pop() ?? url.hostname, url.href),
    });
  }
  if (o.isFolder?.(s))
    return ok({
      kind: 'local',
      repo: s,
      localRoot: '',
      entry: adHocEntry(s.split(/[\\/]/).filter(Boolean).pop() ?? 'folder', s),
    });
  if (isHubId(s))
    return ok({
      kind: 'remote',
      repo: s,
      revision: 'main',
      remoteHost: slash(o.hubHost ?? HF_HOST),
      remotePathTemplate: '{model}/resolve/{revision}/',
      entry: adHocEntry(s.replace('/', '-'), s, s),
    });
  const known = manifest ? `: ${manifest.models.map((m) => m.id).join(', ')}` : '';
  return fail({
    code: 'E_MODEL_SPEC',
    message: describe(
      'E_MODEL_SPEC',
      `"${s.slice(0, 200)}" is not a model in the manifest${known}, a hub id (owner/name), a URL${o.isFolder ? ' or a folder' : ''}`,
    ),
  });
}

/** The ONNX file a dtype loads, relative to the model folder. */
export const onnxFileOf = (dtype: Dtype): string => `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`;

/** Bits per weight of each dtype; 4-bit kinds carry a scale per block of 32 (about half a bit more). */
const BITS: Record<Dtype, number> = {
  fp32: 32,
  fp16: 16,
  q8: 8,
  int8: 8,
  uint8: 8,
  q4: 4.5,
  q4f16: 4.5,
  bnb4: 4.5,
};

/**
 * The download for one dtype, MB: the entry's `sizeMB` when it gives one, else an estimate from
 * the parameter count (parameters × bits per weight), which the UI shows as approximate.
 */
export function estimateSizeMB(entry: ModelEntry, dtype: Dtype): { mb: number; exact: boolean } {
  const known = entry.sizeMB[dtype];
  if (known !== undefined) return { mb: known, exact: true };
  return { mb: Math.round((entry.paramsM * BITS[dtype]) / 8), exact: false };
}
