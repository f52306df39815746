// The main-process wiring of an Electron app on steerable-sidecar-client
// (not run in CI: it needs Electron). The sidecar lives in the main
// process; the renderer reaches it through IPC: it invokes tools, receives
// their live output, and answers the sidecar's questions and approvals.
//
//   npm install electron steerable-sidecar-client steerable-sidecar
//   electron-builder: asarUnpack: ["node_modules/steerable-sidecar-*/**"]
//   (an executable inside app.asar cannot run; the client looks in
//   app.asar.unpacked)
import { randomUUID } from "node:crypto";
import { app, BrowserWindow, dialog, ipcMain } from "electron";
import { spawnSidecar } from "steerable-sidecar-client";

let sidecar;
let win;

/** ask sends a request to the renderer and waits for its answer (or the sidecar's cancellation). */
function ask(channel, params, signal) {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onAnswer = (_event, answerId, result) => {
      if (answerId !== id) return;
      ipcMain.off(`${channel}:answer`, onAnswer);
      resolve(result);
    };
    ipcMain.on(`${channel}:answer`, onAnswer);
    signal.addEventListener("abort", () => {
      ipcMain.off(`${channel}:answer`, onAnswer);
      win.webContents.send(`${channel}:close`, id); // the sidecar no longer waits: close the dialog
      reject(signal.reason);
    });
    win.webContents.send(channel, id, params);
  });
}

app.whenReady().then(async () => {
  win = new BrowserWindow({ webPreferences: { preload: new URL("./preload.cjs", import.meta.url).pathname } });
  const workspace = app.getPath("documents"); // the folder the person opened
  sidecar = await spawnSidecar({
    cwd: workspace,
    env: { STEERABLE_APPROVALS: "host" },
    logger: (e) => e.level !== "debug" && console.log(`[sidecar ${e.level}] ${e.message}`),
    onAskUser: (req, { signal }) => ask("sidecar:ask-user", req, signal),
    onApproval: async (req) => {
      const { response } = await dialog.showMessageBox(win, {
        message: `Allow ${req.toolName}?`,
        detail: JSON.stringify(req.arguments, null, 2),
        buttons: ["Allow", "Deny"],
      });
      return response === 0 ? { decision: "allow" } : { decision: "deny", reason: "the person said no" };
    },
  });
  sidecar.on("exit", ({ code, signal }) => win?.webContents.send("sidecar:exit", code, signal));

  // The renderer's agent loop calls tools by the model's tool-call id; their
  // output streams back as it is produced; a cancel aborts the call.
  const running = new Map();
  ipcMain.handle("sidecar:invoke", async (_event, { id, name, arguments: args }) => {
    const ac = new AbortController();
    running.set(id, ac);
    try {
      return await sidecar.invoke(name, args, {
        id,
        signal: ac.signal,
        onProgress: (p) => win.webContents.send("sidecar:progress", p),
      });
    } finally {
      running.delete(id);
    }
  });
  ipcMain.on("sidecar:cancel", (_event, id) => running.get(id)?.abort());
  ipcMain.handle("sidecar:tools", () => sidecar.listTools({ view: "model", askUser: true }));
});

// Shut the sidecar down with the app: in-flight calls drain, then it is
// killed if it has not exited within the grace.
app.on("before-quit", (event) => {
  if (!sidecar) return;
  event.preventDefault();
  const s = sidecar;
  sidecar = undefined;
  s.dispose({ graceMs: 5000 }).finally(() => app.quit());
});
