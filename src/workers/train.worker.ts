/// <reference lib="webworker" />
import { chooseBackend } from '../gpu/index.ts';
import { serveRpc } from './rpc/server.ts';
import { trainMethods } from './train.methods.ts';
import { trainHandlers } from './train.session.ts';

/**
 * Trains the construction policy off the main thread (src/train `Trainer`, simulated sub-agents),
 * on the compute backend the page asks for: an iteration takes far longer than a frame. The page
 * drives it through `train.client.ts`; what each method does is in `train.session.ts`.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;

serveRpc(
  scope,
  trainMethods,
  trainHandlers({
    choose: (prefer, onLost) =>
      chooseBackend(prefer, { onLost: (reason, message) => onLost(message || reason) }),
  }),
  'train',
);
