/**
 * The bridge contract on Electron IPC: one handler per contract method, registered in a
 * loop over the contract, each checking that the request comes from the app's own page
 * in a top-level frame before the shared dispatcher validates the input with zod.
 */
import { METHOD_NAMES, type BridgeResult, type Handlers } from '../shared/contract';
import { IPC_INVOKE_PREFIX } from '../shared/ipc-channels';
import { dispatch, failure } from '../backend/dispatch';

/** What a request tells about its sender (from Electron's IpcMainInvokeEvent). */
export interface SenderInfo {
  url: string | undefined;
  isMainFrame: boolean;
}

export interface IpcRegistrar {
  handle(channel: string, listener: (event: unknown, input: unknown) => Promise<BridgeResult>): void;
  removeHandler(channel: string): void;
}

export function registerBridge(
  ipc: IpcRegistrar,
  handlers: Handlers,
  senderOf: (event: unknown) => SenderInfo,
  isAppUrl: (url: string) => boolean,
): () => void {
  for (const method of METHOD_NAMES) {
    ipc.handle(`${IPC_INVOKE_PREFIX}${method}`, async (event, input) => {
      const sender = senderOf(event);
      if (!sender.isMainFrame || !sender.url || !isAppUrl(sender.url)) {
        return failure('forbidden', 'Refused: the request did not come from the Loom window.');
      }
      return dispatch(handlers, method, input);
    });
  }
  return () => METHOD_NAMES.forEach((method) => ipc.removeHandler(`${IPC_INVOKE_PREFIX}${method}`));
}
