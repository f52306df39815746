// spawnSidecar: finding the binary, waiting for ready, the boot errors a
// host sees, stderr, both framings, dispose.
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { BinaryNotFoundError, RpcError, SidecarError, SidecarExitError, spawnSidecar } from "../dist/index.js";
import { alive, binary, testdata, start, until, workspace } from "./helpers.mjs";

test("ready: lifecycle.ready's info, the pid of the process, stderr parsed into the logger", async (t) => {
  const sc = await start(t);
  assert.equal(sc.info.protocolVersion, "0.1.0");
  assert.equal(sc.info.pid, sc.pid);
  assert.equal(sc.binary, binary);
  const health = await sc.ping();
  assert.equal(health.pid, sc.pid);
  await until(() => sc.logs.some((e) => e.message === "sidecar ready"), "the ready log line");
  const line = sc.logs.find((e) => e.message === "sidecar ready");
  assert.equal(line.level, "info");
  assert.equal(typeof line.fields.tools, "number");
  assert.equal(line.pid, sc.pid);
  assert.ok(!sc.logs.some((e) => e.raw.startsWith("__SIDECAR_READY__")), "the raw ready marker is not written (--quiet-ready)");
});

test("a workspace that does not exist: the sidecar's own boot error, not a spawn error", async (t) => {
  const err = await spawnSidecar({ binary, cwd: "/nonexistent/workspace", logger: null }).then(() => null, (e) => e);
  assert.ok(err instanceof SidecarExitError, String(err));
  assert.equal(err.beforeReady, true);
  assert.equal(err.exitCode, 2);
  assert.match(err.message, /exited with code 2 before it was ready: steerable-sidecar: workspace "\/nonexistent\/workspace".*pass an existing directory with --cwd/);
});

test("a bad flag: the one line that says so, not the whole usage", async (t) => {
  const err = await spawnSidecar({ binary, cwd: workspace(t), args: ["--bogus"], logger: null }).then(() => null, (e) => e);
  assert.ok(err instanceof SidecarExitError);
  assert.match(err.message, /before it was ready: flag provided but not defined: -bogus$/);
  assert.deepEqual(err.stderr, ["flag provided but not defined: -bogus"]);
});

test("an invalid variable under --strict-config names it and its range", async (t) => {
  const err = await spawnSidecar({ binary, cwd: workspace(t), args: ["--strict-config"], env: { STEERABLE_MAX_INFLIGHT: "0" }, logger: null }).then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof SidecarExitError);
  assert.match(err.message, /STEERABLE_MAX_INFLIGHT="0" is invalid: allowed an integer in 1\.\.4096/);
});

test("a binary path that is wrong: a message naming it and the fix, no ENOENT stack", async (t) => {
  const err = await spawnSidecar({ binary: "/nonexistent/steerable-sidecar", cwd: workspace(t) }).then(() => null, (e) => e);
  assert.ok(err instanceof BinaryNotFoundError);
  assert.match(err.message, /^steerable-sidecar binary "\/nonexistent\/steerable-sidecar" \(from the binary option\) does not exist; build it with `make build`/);
  const notExec = join(workspace(t), "steerable-sidecar");
  writeFileSync(notExec, "");
  const err2 = await spawnSidecar({ binary: notExec, cwd: workspace(t) }).then(() => null, (e) => e);
  assert.match(err2.message, /is not executable \(chmod \+x it\)/);
});

test("the binary is found through STEERABLE_SIDECAR_BIN, then PATH; nowhere is a list of where it looked", async (t) => {
  const viaEnv = await start(t, { binary: undefined, env: { STEERABLE_SIDECAR_BIN: binary } });
  assert.equal(viaEnv.binary, binary);
  const bad = await spawnSidecar({ cwd: workspace(t), env: { STEERABLE_SIDECAR_BIN: "/nope/steerable-sidecar" } }).then(() => null, (e) => e);
  assert.match(bad.message, /"\/nope\/steerable-sidecar" \(from STEERABLE_SIDECAR_BIN\) does not exist/);
  const viaPath = await start(t, { binary: undefined, env: { STEERABLE_SIDECAR_BIN: undefined, PATH: `${dirname(binary)}:${process.env.PATH}` } });
  assert.equal(viaPath.binary, binary);
  const none = await spawnSidecar({ cwd: workspace(t), env: { STEERABLE_SIDECAR_BIN: undefined, PATH: "/nonexistent" } }).then(() => null, (e) => e);
  assert.ok(none instanceof BinaryNotFoundError);
  assert.deepEqual(none.tried, [
    "the binary option: not given",
    "STEERABLE_SIDECAR_BIN: not set",
    "npm package steerable-sidecar: not installed",
    "PATH: no steerable-sidecar in any of its directories",
  ]);
});

test("no lifecycle.ready within readyTimeoutMs: rejected, and the process is killed", async (t) => {
  const ws = workspace(t);
  const pidFile = join(ws, "pid");
  const err = await spawnSidecar({
    binary: join(testdata, "silent-sidecar.sh"),
    cwd: ws,
    env: { SILENT_SIDECAR_PID_FILE: pidFile },
    readyTimeoutMs: 1000,
    logger: null,
  }).then(() => null, (e) => e);
  assert.ok(err instanceof SidecarError);
  assert.match(err.message, /no lifecycle.ready within 1000 ms \(readyTimeoutMs\); killed it/);
  // A loaded machine may not even have run the script when the timeout
  // fires; when it did, its process is gone.
  if (existsSync(pidFile)) assert.ok(!alive(Number(readFileSync(pidFile, "utf8"))), "the process is gone");
});

test("aborting the signal while it starts rejects with the signal's reason and kills it", async (t) => {
  const ac = new AbortController();
  let pid;
  const p = spawnSidecar({ binary: join(testdata, "silent-sidecar.sh"), cwd: workspace(t), signal: ac.signal, logger: (e) => (pid = e.pid) });
  await until(() => pid !== undefined, "the fixture's first stderr line");
  ac.abort(new Error("host quit"));
  await assert.rejects(p, /host quit/);
  assert.ok(!alive(pid));
  await assert.rejects(spawnSidecar({ binary, cwd: workspace(t), signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("aborting the signal of a running sidecar disposes of it", async (t) => {
  const ac = new AbortController();
  const sc = await start(t, { signal: ac.signal });
  ac.abort();
  assert.deepEqual(await sc.exited, { code: 0, signal: null });
});

test("content-length framing: the same calls over LSP headers", async (t) => {
  const sc = await start(t, { framing: "content-length", files: { "a.txt": "over headers\n" } });
  assert.equal((await sc.ping()).status, "ok");
  const res = await sc.invoke("read_file", { path: "a.txt" });
  assert.equal(res.data.content, "over headers\n");
  const call = sc.invoke("bash", { command: "echo live" });
  const chunks = [];
  for await (const p of call.progress()) chunks.push(p.chunk);
  assert.deepEqual(chunks, ["live\n"]);
});

test("dispose: system.shutdown, lifecycle.shutdown, exit 0; later calls reject with the exit", async (t) => {
  const sc = await start(t);
  const shutdown = new Promise((resolve) => sc.once("shutdown", resolve));
  const d = sc.dispose();
  assert.equal(sc.dispose(), d, "dispose twice is the same promise");
  assert.deepEqual(await d, { code: 0, signal: null });
  assert.deepEqual(await shutdown, { reason: "normal" });
  const err = await sc.ping().then(() => null, (e) => e);
  assert.ok(err instanceof SidecarExitError);
  assert.match(err.message, /exited with code 0 after dispose\(\)/);
});

test("dispose kills after the grace when the sidecar does not exit", async (t) => {
  // The sidecar's own drain waits 10 minutes for the running call: the
  // client's grace (300 ms) ends it with SIGKILL.
  const sc = await start(t, { env: { STEERABLE_SHUTDOWN_GRACE_MS: "600000" } });
  const call = sc.invoke("bash", { command: "echo started; exec sleep 600" });
  await once(call, "progress");
  assert.deepEqual(await sc.dispose({ graceMs: 300 }), { code: null, signal: "SIGKILL" });
  const err = await call.then(() => null, (e) => e);
  assert.ok(err instanceof SidecarExitError);
  assert.equal(err.signal, "SIGKILL");
});

test("Symbol.asyncDispose: `await using` ends the sidecar", async (t) => {
  const sc = await start(t);
  await sc[Symbol.asyncDispose]();
  assert.deepEqual(await sc.exited, { code: 0, signal: null });
});

test("an unknown method is an RpcError with the sidecar's code and kind", async (t) => {
  const sc = await start(t);
  const err = await sc.request("no.such_method", {}).then(() => null, (e) => e);
  assert.ok(err instanceof RpcError);
  assert.equal(err.code, -32601);
  assert.equal(err.kind, "method_not_found");
  assert.equal(err.method, "no.such_method");
  assert.equal(err.data.method, "no.such_method");
});
