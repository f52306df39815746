// A minimal Node host for steerable-sidecar: spawn it, wait for
// lifecycle.ready, list the tools, invoke one, answer reverse requests, shut
// down. No dependencies beyond Node itself.
//
//   node examples/node-host/host.mjs [path/to/steerable-sidecar]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2] ?? "bin/steerable-sidecar";
const workspace = mkdtempSync(join(tmpdir(), "sidecar-node-"));
writeFileSync(join(workspace, "hello.txt"), "hello from node\n");

const child = spawn(bin, ["--cwd", workspace, "--log-level", "warn"], {
  stdio: ["pipe", "pipe", "inherit"],
});

let nextId = 1;
const pending = new Map();
let onReady;
const ready = new Promise((resolve) => (onReady = resolve));

// Every stdout line is one JSON-RPC frame.
createInterface({ input: child.stdout }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method && msg.id !== undefined) return answerReverse(msg); // sidecar → host request
  if (msg.method) {
    if (msg.method === "lifecycle.ready") onReady(msg.params);
    return; // other notifications: tool.progress, lifecycle.shutdown
  }
  const waiter = pending.get(msg.id);
  pending.delete(msg.id);
  if (!waiter) return;
  msg.error ? waiter.reject(Object.assign(new Error(msg.error.message), msg.error)) : waiter.resolve(msg.result);
});

function send(frame) {
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...frame }) + "\n");
}

function call(method, params) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
}

// Reverse requests: approvals, ask_user questions, host tools, hosted search.
function answerReverse(msg) {
  if (msg.method === "approval.request") return send({ id: msg.id, result: { decision: "allow" } });
  if (msg.method === "ask_user.request") {
    // A real host renders msg.params as a question card; this one picks the
    // first option of each select and types a fixed text.
    const answers = {};
    for (const q of msg.params.questions) {
      const first = q.options?.[0];
      const pick = first ? first.value ?? first.label : "an answer typed by the node host";
      answers[q.id] = q.multiSelect ? [pick] : pick;
    }
    return send({ id: msg.id, result: { answers } });
  }
  send({ id: msg.id, error: { code: -32601, message: `this host does not implement ${msg.method}` } });
}

function check(cond, what) {
  if (!cond) {
    console.error(`node host: FAILED: ${what}`);
    process.exit(1);
  }
}

const info = await ready;
check(info.protocolVersion === "0.1.0", "protocol version");
const health = await call("system.ping");
console.log(`sidecar ${health.version} ready, ${health.loadedTools} tools, status ${health.status}`);

const tools = await call("tool.list", { view: "model", askUser: true });
console.log(`model view: ${tools.map((t) => t.name).join(", ") || "(none)"}`);

const names = new Set(tools.map((t) => t.name));
if (names.has("read_file")) {
  const res = await call("tool.invoke", { name: "read_file", arguments: { path: "hello.txt" } });
  check(res.success && res.data.content === "hello from node\n", "read_file result");
  console.log(`read_file: version ${res.data.version.slice(0, 12)}…`);
}

if (names.has("ask_user")) {
  // ask_user blocks until the host answers its reverse ask_user.request.
  const res = await call("tool.invoke", {
    name: "ask_user",
    arguments: { intro: "One question.", questions: [{ id: "db", text: "Which database?", type: "select", options: ["Postgres", "SQLite"] }] },
  });
  check(res.success && res.data.answers.db === "Postgres", "ask_user answer");
  console.log(`ask_user: ${res.message}`);
}

// A tool failure is a ToolResult, not a JSON-RPC error.
const missing = await call("tool.invoke", { name: "no_such_tool", arguments: {} });
check(!missing.success && missing.needsFollowup, "unknown tool is a follow-up result");
console.log(`unknown tool: ${missing.error}`);

// An envelope problem is a JSON-RPC error.
try {
  await call("tool.invoke", { name: "x" });
  check(false, "missing arguments should be -32602");
} catch (err) {
  check(err.code === -32602, "invalid params code");
}

await call("system.shutdown");
const code = await new Promise((resolve) => child.on("exit", resolve));
check(code === 0, "clean exit");
console.log("node host: ok");
