// Narrow by design: the renderer gets no raw ipcRenderer. The typed bridge arrives with the UI issue.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('hookbench', { platform: process.platform });
