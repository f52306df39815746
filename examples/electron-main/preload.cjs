// The renderer's side of main.mjs: a narrow API over IPC (contextIsolation on).
const { contextBridge, ipcRenderer } = require("electron");

contextBridge.exposeInMainWorld("sidecar", {
  tools: () => ipcRenderer.invoke("sidecar:tools"),
  invoke: (call) => ipcRenderer.invoke("sidecar:invoke", call),
  cancel: (id) => ipcRenderer.send("sidecar:cancel", id),
  onProgress: (fn) => ipcRenderer.on("sidecar:progress", (_e, p) => fn(p)),
  // fn(params) returns the answers ({answers} or {cancelled: true}); onClose(id) closes a dialog the sidecar gave up on.
  onAskUser: (fn, onClose) => {
    ipcRenderer.on("sidecar:ask-user", async (_e, id, params) => ipcRenderer.send("sidecar:ask-user:answer", id, await fn(params)));
    ipcRenderer.on("sidecar:ask-user:close", (_e, id) => onClose?.(id));
  },
});
