/**
 * zod schemas for what crosses the trust boundary from an OpenAI-compatible server. They
 * accept what real servers send (extra fields are ignored, `content` may be null) and reject
 * what the client cannot use.
 */
import { z } from 'zod';

const nonNegInt = z.number().int().nonnegative();

export const UsageWire = z.object({
  prompt_tokens: nonNegInt,
  completion_tokens: nonNegInt,
  total_tokens: nonNegInt.optional(),
});
export type UsageWire = z.infer<typeof UsageWire>;

export const ChatCompletionWire = z.object({
  id: z.string(),
  model: z.string(),
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1, 'the response has no choices'),
  usage: UsageWire.nullable().optional(),
});
export type ChatCompletionWire = z.infer<typeof ChatCompletionWire>;

export const ChatCompletionChunkWire = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.object({
      delta: z
        .object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
        })
        .optional(),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: UsageWire.nullable().optional(),
});
export type ChatCompletionChunkWire = z.infer<typeof ChatCompletionChunkWire>;

/** OpenAI-shaped error bodies; many compatible servers use the same shape. */
export const ErrorBodyWire = z.object({
  error: z.union([z.object({ message: z.string() }), z.string()]),
});

export const ModelListWire = z.object({
  data: z.array(z.object({ id: z.string() })),
});

/** Turns zod issues into short strings a person can read: "choices.0.message: expected object". */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}
