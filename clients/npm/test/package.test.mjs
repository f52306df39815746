// The npm packages of the binary: packed, then installed from the tarballs
// into an empty project with no registry and an empty cache (npm install
// --offline), as npm would from the registry: only this platform's package
// lands, `npx steerable-sidecar` runs its binary, and the TypeScript client
// finds that binary with no option, variable or PATH entry.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { build, npmVersion, pack, targets } from "../build.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const binary = process.env.STEERABLE_SIDECAR_BIN || join(repo, "bin", "steerable-sidecar");
const client = join(repo, "clients", "typescript");
const host = targets.find((t) => t.key === `${process.platform}-${process.arch}`);

test("npmVersion: tags stay, untagged builds become 0.0.0-dev prereleases", () => {
  assert.equal(npmVersion("v1.2.0"), "1.2.0");
  assert.equal(npmVersion("v1.2.0-3-gabc1234"), "1.2.0-3-gabc1234");
  assert.equal(npmVersion("3f2a1b0-dirty"), "0.0.0-dev.3f2a1b0-dirty");
  assert.equal(npmVersion("dev"), "0.0.0-dev.dev");
});

test("installed offline from the tarballs: this platform's binary only, npx runs it, the client finds it", { skip: !host && `no release target for ${process.platform}-${process.arch}` }, (t) => {
  assert.ok(existsSync(binary), `${binary} is missing: run make build`);
  assert.ok(existsSync(join(client, "dist", "index.js")), "clients/typescript is not built: run npm run build there");
  const tmp = mkdtempSync(join(tmpdir(), "sidecar-npm-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));

  // The other platforms' packages hold a script that says it ran: if the
  // shim picked one, the version check below would show it.
  const wrong = join(tmp, "wrong-platform");
  writeFileSync(wrong, "#!/bin/sh\necho 'wrong platform binary'\nexit 3\n", { mode: 0o755 });
  const binaries = Object.fromEntries(targets.map((x) => [x.key, x === host ? binary : wrong]));
  const out = join(tmp, "npm");
  const dirs = build({ version: "v1.2.3", dist: join(tmp, "dist"), out, binaries });
  const [jsonrpc] = readdirSync(join(client, "node_modules")).filter((d) => d === "vscode-jsonrpc");
  const tarballs = pack([...dirs, client, join(client, "node_modules", jsonrpc)], out);
  const byName = Object.fromEntries(tarballs.map((p) => [p.split("/").pop().replace(/-\d+\.\d+\.\d+.*\.tgz$/, ""), "file:" + p]));
  assert.deepEqual(Object.keys(byName).sort(), [...targets.map((x) => x.pkg), "steerable-sidecar", "steerable-sidecar-client", "vscode-jsonrpc"].sort());

  const project = join(tmp, "project");
  const { "steerable-sidecar": main, "steerable-sidecar-client": clientTgz, ...overrides } = byName;
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "host", private: true, type: "module", dependencies: { "steerable-sidecar": main, "steerable-sidecar-client": clientTgz }, overrides }));
  const npmEnv = { ...process.env, npm_config_cache: join(tmp, "cache"), npm_config_registry: "http://127.0.0.1:9/", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  execFileSync("npm", ["install", "--offline", "--loglevel=error"], { cwd: project, env: npmEnv, stdio: ["ignore", "pipe", "inherit"] });

  const installed = readdirSync(join(project, "node_modules")).filter((d) => d.startsWith("steerable-sidecar"));
  assert.deepEqual(installed.sort(), ["steerable-sidecar", "steerable-sidecar-client", host.pkg].sort(), "npm skipped the other platforms' packages");

  const version = execFileSync("npx", ["--offline", "steerable-sidecar", "version"], { cwd: project, env: npmEnv, encoding: "utf8" });
  assert.match(version, new RegExp(`^steerable-sidecar \\S+ \\(protocol 0\\.1\\.0, go\\S+ ${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`));

  // The shim passes stdio, arguments and the exit code through.
  const ping = spawnSync(join(project, "node_modules", ".bin", "steerable-sidecar"), ["--quiet-ready", "--cwd", project], {
    input: '{"jsonrpc":"2.0","id":1,"method":"system.ping"}\n',
    encoding: "utf8",
  });
  assert.equal(ping.status, 0, ping.stderr);
  assert.match(ping.stdout, /"id":1,"result":\{"status":"/);
  const bad = spawnSync(join(project, "node_modules", ".bin", "steerable-sidecar"), ["--bogus"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /flag provided but not defined: -bogus/);

  // The client, with no binary option, no STEERABLE_SIDECAR_BIN and no
  // steerable-sidecar on PATH, spawns the installed package's binary.
  const script = `import { spawnSidecar } from "steerable-sidecar-client";
const sc = await spawnSidecar({ cwd: process.cwd() });
console.log(sc.binary, (await sc.ping()).status, JSON.stringify(await sc.dispose()));`;
  const env = { ...process.env, PATH: dirname(process.execPath) };
  delete env.STEERABLE_SIDECAR_BIN;
  const ran = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, env, encoding: "utf8" });
  assert.equal(ran.trim(), `${join(project, "node_modules", host.pkg, "bin", host.exe)} ok {"code":0,"signal":null}`);
});
