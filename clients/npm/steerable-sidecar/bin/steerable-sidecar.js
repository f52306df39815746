#!/usr/bin/env node
"use strict";
// The command npm puts on PATH (npx steerable-sidecar …): it runs this
// platform's binary with the same arguments and stdio, passes SIGINT,
// SIGTERM and SIGHUP on, and exits as the binary did. A host that spawns
// the sidecar should spawn binaryPath() itself rather than this shim (one
// process fewer, and a SIGKILL reaches the sidecar).
const { spawn } = require("child_process");
const { binaryPath } = require("..");

let bin;
try {
  bin = binaryPath();
} catch (err) {
  console.error(`steerable-sidecar: ${err.message}`);
  process.exit(1);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of forwarded) process.on(sig, () => child.kill(sig));
child.on("error", (err) => {
  console.error(`steerable-sidecar: could not run ${bin}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  for (const sig of forwarded) process.removeAllListeners(sig);
  process.kill(process.pid, signal); // die the way the binary did
});
