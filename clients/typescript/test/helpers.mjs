// Shared by the tests: the binary under test (STEERABLE_SIDECAR_BIN, else
// the repository's bin/steerable-sidecar from `make build`), scratch
// workspaces, and a wait for states instead of sleeps.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSidecar } from "../dist/index.js";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, "..", "..", "..");
export const testdata = join(repo, "clients", "testdata");

export const binary = process.env.STEERABLE_SIDECAR_BIN || join(repo, "bin", "steerable-sidecar");
if (!existsSync(binary)) {
  throw new Error(`the tests drive the real binary: ${binary} is missing; run \`make build\` in ${repo} or set STEERABLE_SIDECAR_BIN`);
}

/** workspace makes a scratch directory with files, removed when the test ends. */
export function workspace(t, files = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "sidecar-ts-")));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** start spawns the binary under test in a scratch workspace; it is disposed of when the test ends. */
export async function start(t, opts = {}) {
  const cwd = opts.cwd ?? workspace(t, opts.files);
  const logs = [];
  const sidecar = await spawnSidecar({ binary, logger: (e) => logs.push(e), ...opts, cwd });
  sidecar.logs = logs;
  sidecar.cwd = cwd;
  t.after(() => sidecar.dispose());
  return sidecar;
}

/** until polls cond (every 10 ms) until it is true. */
export async function until(cond, what) {
  for (let i = 0; ; i++) {
    if (await cond()) return;
    if (i === 3000) throw new Error(`waited 30 s for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * pluginConfig writes a plugins.json, outside the workspace, that runs the
 * echo MCP server of clients/testdata (python3) unsandboxed: under bwrap a
 * plugin's /tmp is private, so a checkout below /tmp (CI's) would hide the
 * server from a sandboxed plugin, and the sidecar grants "none" only to a
 * plugin whose manifest and cwd the model cannot write. The plugin sandbox
 * has its own tests (cmd/steerable-sidecar); these test the client.
 */
export function pluginConfig(t) {
  const dir = workspace(t);
  const path = join(dir, "plugins.json");
  writeFileSync(path, JSON.stringify({
    plugins: { echo: { command: "python3", args: [join(testdata, "echo_mcp_server.py")], cwd: testdata, sandbox: "none" } },
  }));
  return path;
}

/** alive says whether a process exists. */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
