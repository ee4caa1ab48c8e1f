// The renderer's only door to the main process: one invoke channel for the contract's
// calls and one channel of live events. No ipcRenderer, no Node object crosses the bridge; main
// checks the method name and the sender again, since a preload is no security boundary by itself.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { LiveEvent } from '../../src-shared/api';
import { BRIDGE_GLOBAL, type HookbenchBridge } from '../../src-shared/bridge';
import { CALL_CHANNEL, LIVE_CHANNEL } from './channels';

const bridge: HookbenchBridge = {
  call: (method, params) => ipcRenderer.invoke(CALL_CHANNEL, { method, params }),
  subscribe(onEvent) {
    const listener = (_event: IpcRendererEvent, live: LiveEvent): void => onEvent(live);
    ipcRenderer.on(LIVE_CHANNEL, listener);
    return () => {
      ipcRenderer.removeListener(LIVE_CHANNEL, listener);
    };
  },
  platform: process.platform,
};

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
