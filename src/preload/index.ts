/**
 * Exposes the bridge contract to the sandboxed renderer as `window.loom` and nothing else:
 * no ipcRenderer, no Node. Each contract method has its own channel; the main process
 * checks the sender and validates the input.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { BridgeEvent, ElectronAPI } from '../shared/contract';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX } from '../shared/ipc-channels';

const api: ElectronAPI = {
  invoke: (method, input) => ipcRenderer.invoke(`${IPC_INVOKE_PREFIX}${String(method)}`, input),
  onEvent(listener) {
    const forward = (_event: IpcRendererEvent, payload: BridgeEvent) => listener(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('loom', api);
