import { readFile } from 'node:fs/promises';
import { chooseBackend } from '../gpu/index.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';
import { createOrchTrainClient, type OrchTrainClient } from './train-orchestrator.client.ts';
import { orchTrainLib } from './train-orchestrator.lib.ts';
import { orchTrainMethods } from './train-orchestrator.methods.ts';
import { orchTrainHandlers, type OrchCheckpointStore } from './train-orchestrator.session.ts';

/**
 * For tests in Node: the orchestrator training handlers served on one end of a MessageChannel in
 * this thread, with the real trainer, the real client on the other end, `file:` URLs read from
 * disk (a URL's path under `root`), and the checkpoint and exported folders kept in memory.
 */
export function channelOrchTrainWorker(root: string): OrchTrainClient & {
  close(): void;
  saved: { text: string | null };
  folders: Map<string, Map<string, Uint8Array | string>>;
} {
  const saved: { text: string | null } = { text: null };
  const folders = new Map<string, Map<string, Uint8Array | string>>();
  const store: OrchCheckpointStore = {
    load: () => Promise.resolve(saved.text),
    save: (t) => {
      saved.text = t;
      return Promise.resolve();
    },
    clear: () => {
      saved.text = null;
      return Promise.resolve();
    },
  };
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(
    port2,
    orchTrainMethods,
    orchTrainHandlers({
      lib: orchTrainLib,
      choose: (prefer, onLost) => chooseBackend(prefer, { onLost: (_r, m) => onLost(m) }),
      readFolder: async (url) => {
        const dir = `${root}${decodeURIComponent(new URL(url).pathname)}`;
        return {
          config: await readFile(`${dir}config.json`, 'utf8'),
          tokenizer: await readFile(`${dir}tokenizer.json`, 'utf8'),
          tokenizerConfig: await readFile(`${dir}tokenizer_config.json`, 'utf8'),
          onnx: new Uint8Array(await readFile(`${dir}onnx/model.onnx`)),
        };
      },
      store,
      putFolder: (url, files) => {
        folders.set(url, files);
        return Promise.resolve();
      },
    }),
    'train',
  );
  const client = createOrchTrainClient(() => portEndpoint(port1));
  return {
    ...client,
    saved,
    folders,
    close() {
      client.dispose();
      stop();
      port2.close();
    },
  };
}
