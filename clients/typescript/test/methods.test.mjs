// Every host → sidecar method the binary serves, through its typed wrapper.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RpcError, SidecarExitError } from "../dist/index.js";
import { pluginConfig, start, workspace } from "./helpers.mjs";

test("system.ping and tool.list (both views)", async (t) => {
  const sc = await start(t);
  const health = await sc.ping();
  assert.equal(health.status, "ok");
  assert.equal(health.protocolVersion, "0.1.0");
  assert.ok(health.checks.sandbox);
  const inventory = await sc.listTools();
  assert.equal(inventory.length, health.loadedTools);
  assert.ok(inventory.every((d) => d.name && d.mode && d.exposure && d.source));
  const withAsk = await sc.listTools({ view: "model", strategy: "full", askUser: true });
  const without = await sc.listTools({ view: "model", strategy: "full" });
  assert.ok(withAsk.some((d) => d.name === "ask_user"));
  assert.ok(!without.some((d) => d.name === "ask_user"), "the model is offered ask_user only when askUser is set");
  await assert.rejects(sc.listTools({ view: "everything" }), (e) => e instanceof RpcError && e.code === -32602 && e.kind === "invalid_params");
});

test("tool.invoke: a result, a failed result, an envelope error", async (t) => {
  const sc = await start(t, { files: { "hello.txt": "hello\n" } });
  const ok = await sc.invoke("read_file", { path: "hello.txt" }, { id: "c1" });
  assert.equal(ok.success, true);
  assert.equal(ok.data.content, "hello\n");
  const missing = await sc.invoke("raed_file", {});
  assert.equal(missing.success, false);
  assert.equal(missing.needsFollowup, true);
  assert.equal(missing.error, "unknown tool: raed_file");
  await assert.rejects(sc.request("tool.invoke", { name: "read_file" }), (e) => e.code === -32602 && /missing property 'arguments'/.test(e.message));
});

test("read_state.seed and read_state.get", async (t) => {
  const sc = await start(t, { files: { "a.txt": "a\n" } });
  const version = createHash("sha256").update("a\n").digest("hex");
  assert.deepEqual(await sc.getReadState(), { state: {} });
  const seeded = await sc.seedReadState({ state: { [`${sc.cwd}/a.txt`]: version } });
  assert.deepEqual(seeded, { seeded: 1, skipped: 0 });
  assert.deepEqual(await sc.getReadState(), { state: { [`${sc.cwd}/a.txt`]: version } });
  // A seeded read lets a write go through without reading first.
  const write = await sc.invoke("write_file", { path: "a.txt", content: "b\n" });
  assert.equal(write.success, true, write.error);
});

test("host_tools.register, then the sidecar calls the host tool back", async (t) => {
  const calls = [];
  const sc = await start(t, {
    onHostTool: (call) => {
      calls.push(call);
      return { success: true, message: `created ${call.arguments.title}` };
    },
  });
  const reg = await sc.registerHostTools([
    { name: "create_event", description: "Create a calendar event.", parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } },
  ]);
  assert.deepEqual(reg, { registered: 1 });
  const tools = await sc.listTools();
  assert.equal(tools.find((d) => d.name === "create_event").source, "host");
  const res = await sc.invoke("create_event", { title: "standup" }, { id: "call_1" });
  assert.equal(res.success, true);
  assert.equal(res.message, "created standup");
  assert.deepEqual(calls, [{ id: "call_1", name: "create_event", arguments: { title: "standup" } }]);
});

test("plugin.list, .disable, .enable, .reload, .unload", async (t) => {
  const cwd = workspace(t);
  const sc = await start(t, { cwd, env: { STEERABLE_PLUGINS_CONFIG: pluginConfig(t) } });
  const { plugins } = await sc.listPlugins();
  assert.equal(plugins.length, 1);
  assert.equal(plugins[0].name, "echo");
  assert.equal(plugins[0].state, "enabled");
  assert.deepEqual(plugins[0].tools, ["echo"]);
  assert.equal((await sc.invoke("echo", { text: "hi" })).message, "hi");

  assert.equal((await sc.disablePlugin("echo")).plugin.state, "disabled");
  assert.equal((await sc.invoke("echo", { text: "hi" })).error, "unknown tool: echo");
  await assert.rejects(sc.disablePlugin("echo"), (e) => e.code === -32010 && e.kind === "plugin_state" && /already disabled/.test(e.message));
  assert.equal((await sc.enablePlugin("echo")).plugin.state, "enabled");
  assert.equal((await sc.reloadPlugin("echo")).plugin.state, "enabled");
  assert.equal((await sc.invoke("echo", { text: "reloaded" })).message, "reloaded");
  assert.equal((await sc.unloadPlugin("echo")).plugin.state, "unloaded");
  assert.deepEqual(await sc.listPlugins(), { plugins: [] });
});

test("session.list and session.close", async (t) => {
  const sc = await start(t);
  assert.deepEqual(await sc.listSessions(), { sessions: [] });
  const opened = await sc.invoke("bash_session", { command: "echo hi", yieldMs: 200 });
  assert.equal(opened.success, true, opened.error);
  const id = opened.data.sessionId;
  const { sessions } = await sc.listSessions();
  assert.deepEqual(sessions.map((s) => [s.id, s.exited]), [[id, false]]);
  const closed = await sc.closeSession(id);
  assert.equal(closed.session.id, id);
  assert.equal(closed.session.exited, true);
  await assert.rejects(sc.closeSession("sh-00000000"), RpcError);
});

test("system.shutdown_now: the process exits at once", async (t) => {
  const sc = await start(t);
  const call = sc.invoke("bash", { command: "exec sleep 600" });
  assert.equal(await sc.shutdownNow(), null);
  const exit = await sc.exited;
  assert.equal(exit.code, 0);
  // The call in flight is cancelled: answered -32800 if the reply got out
  // before the exit, else failed by the exit.
  await assert.rejects(call, (e) => (e instanceof RpcError && e.code === -32800) || e instanceof SidecarExitError);
});

test("todo.list and the todos event", async (t) => {
  const sc = await start(t);
  assert.deepEqual(await sc.listTodos(), { todos: [] });
  const seen = new Promise((resolve) => sc.once("todos", resolve));
  const todos = [{ id: "1", content: "write the test", status: "in_progress" }];
  const res = await sc.invoke("todo_write", { todos, chatId: "c1" });
  assert.equal(res.success, true, res.error);
  assert.deepEqual(await seen, { chatId: "c1", todos });
  assert.deepEqual(await sc.listTodos("c1"), { todos });
  assert.deepEqual(await sc.listTodos(), { todos: [] });
});

test("checkpoints: create, list, diff, restore, undo of the restore", async (t) => {
  const sc = await start(t, { files: { "a.txt": "before\n" } });
  const cp = await sc.createCheckpoint("turn 1");
  assert.equal(cp.label, "turn 1");
  assert.equal((await sc.invoke("read_file", { path: "a.txt" })).success, true);
  assert.equal((await sc.invoke("write_file", { path: "a.txt", content: "after\n" })).success, true);
  const [listed] = (await sc.listCheckpoints()).checkpoints;
  assert.deepEqual(listed.changed, ["a.txt"]);
  assert.match((await sc.diffCheckpoint(cp.id)).diff, /-before\n\+after\n/);
  const restored = await sc.restoreCheckpoint(cp.id);
  assert.deepEqual(restored.restored, ["a.txt"]);
  assert.equal(readFileSync(join(sc.cwd, "a.txt"), "utf8"), "before\n");
  assert.deepEqual((await sc.undoToolCall(restored.callId)).restored, ["a.txt"]);
  assert.equal(readFileSync(join(sc.cwd, "a.txt"), "utf8"), "after\n");
});
