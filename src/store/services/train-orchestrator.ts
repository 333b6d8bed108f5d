/**
 * The effects the Train page's orchestrator mode uses, swappable in tests (`configureOrchTrain`):
 * the client of its training worker (its code loaded on first use) and the app's base URL (where the
 * SFT model's folder is served and exported folders are kept).
 */
import { openOrchTrainClient, type OrchTrainClient } from '../../workers/index.ts';

export type {
  ExportedModel,
  OrchConfigInput,
  OrchEvaluation,
  OrchMetrics,
  OrchProgress,
  OrchRunInfo,
  OrchSampled,
  OrchTrainClient,
} from '../../workers/index.ts';

export interface OrchTrainEnv {
  client: () => Promise<OrchTrainClient>;
  baseUrl: () => string;
  /** The checkpoint is stored after every this many iterations (and on pause). */
  snapshotEvery: number;
}

let client: Promise<OrchTrainClient> | null = null;
let env: OrchTrainEnv = {
  client: () => (client ??= openOrchTrainClient()),
  baseUrl: () => new URL('.', location.href).href,
  snapshotEvery: 1,
};

export const orchTrainEnv = (): OrchTrainEnv => env;

export function configureOrchTrain(next: Partial<OrchTrainEnv>): OrchTrainEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}
