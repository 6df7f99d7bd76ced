/**
 * Exposes the bridge contract to the sandboxed renderer as `window.loom` and nothing else:
 * no ipcRenderer, no Node. Requests go over one channel and are validated in main.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { BridgeEvent, ElectronAPI } from '../shared/contract';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../shared/ipc-channels';

const api: ElectronAPI = {
  invoke: (method, input) => ipcRenderer.invoke(IPC_INVOKE_CHANNEL, method, input),
  onEvent(listener) {
    const forward = (_event: IpcRendererEvent, payload: BridgeEvent) => listener(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('loom', api);
