import { fail, ok, type Result } from '../../core/result.ts';
import { formatBytes, MAX_FETCH_BYTES } from './fetch-source.ts';
import { errorText, serviceProblem } from './problems.ts';

/** The part of `File` the reader needs, so tests can pass plain objects. */
export interface TextSource {
  name: string;
  size: number;
  text(): Promise<string>;
}

/** Reads a user-chosen file as text, refusing files above the size cap before reading them. */
export async function readFileText(file: TextSource, maxBytes = MAX_FETCH_BYTES): Promise<Result<string>> {
  if (file.size > maxBytes) {
    return fail(
      serviceProblem(
        'E_FILE_TOO_LARGE',
        `${file.name} is ${formatBytes(file.size)}; the limit is ${formatBytes(maxBytes)}`,
      ),
    );
  }
  try {
    return ok(await file.text());
  } catch (e) {
    return fail(serviceProblem('E_FILE_READ', `${file.name}: ${errorText(e)}`));
  }
}

/**
 * Lets the browser paint (e.g. the "Importing…" notice) before a long synchronous step such as
 * running the importers over a large file.
 */
export function yieldToBrowser(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
