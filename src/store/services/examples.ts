import { z } from 'zod';
import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { fetchText, type FetchOptions } from './fetch-source.ts';
import { importOne } from './import.ts';
import { serviceProblem } from './problems.ts';

/** `public/examples/index.json`: the bundled example traces, one file each beside the manifest. */
export const ExamplesManifestSchema = z.object({
  examples: z
    .array(
      z.object({
        file: z
          .string()
          .min(1)
          .max(200)
          .regex(/^[A-Za-z0-9_.-]+$/, 'a plain file name beside index.json'),
        title: z.string().max(500),
        summary: z.string().max(5_000).default(''),
        tags: z.array(z.string().max(100)).max(32).default([]),
      }),
    )
    .max(500),
});

export type ExampleMeta = z.infer<typeof ExamplesManifestSchema>['examples'][number];

/** One card: the manifest entry plus the loaded trace, or why it could not be loaded. */
export interface Example extends ExampleMeta {
  trace: Result<Trace>;
}

/**
 * Loads the manifest and every example trace. URLs are relative to `base` (the page), so a build
 * served from a sub-path finds its examples. A broken example becomes a card with an error; only
 * a missing or malformed manifest fails the whole list.
 */
export async function loadExamples(
  base: string,
  options: Omit<FetchOptions, 'base'> = {},
): Promise<Result<Example[]>> {
  const manifestUrl = new URL('examples/index.json', base).href;
  const fetched = await fetchText(manifestUrl, options);
  if (!fetched.ok) return fail(...fetched.errors.map((p) => examplesProblem(p)));
  let raw: unknown;
  try {
    raw = JSON.parse(fetched.value.text);
  } catch (e) {
    return fail(
      serviceProblem(
        'E_EXAMPLES',
        `index.json is not valid JSON (${e instanceof Error ? e.message : String(e)})`,
      ),
    );
  }
  const manifest = ExamplesManifestSchema.safeParse(raw);
  if (!manifest.success) {
    const issue = manifest.error.issues[0];
    return fail(
      serviceProblem(
        'E_EXAMPLES',
        `index.json: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`,
      ),
    );
  }
  const examples = await Promise.all(
    manifest.data.examples.map(async (meta): Promise<Example> => {
      const file = await fetchText(new URL(meta.file, manifestUrl).href, options);
      if (!file.ok) return { ...meta, trace: file };
      const imported = await importOne(meta.file, file.value.text);
      const first = imported.traces[0];
      if (first) return { ...meta, trace: ok(first) };
      return {
        ...meta,
        trace: fail(
          serviceProblem(
            'E_EXAMPLES',
            `${meta.file}: ${imported.failures.map((f) => f.message).join('; ') || 'no trace in the file'}`,
          ),
        ),
      };
    }),
  );
  return ok(examples);
}

function examplesProblem(p: Problem): Problem {
  return { ...p, message: `${serviceProblem('E_EXAMPLES').message.replace(/\.$/, '')} — ${p.message}` };
}
