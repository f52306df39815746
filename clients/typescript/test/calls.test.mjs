// Tool calls in flight: progress routed to its call, cancellation, a crash
// that fails every pending call, a thousand calls at once.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { RpcError, SidecarExitError } from "../dist/index.js";
import { start } from "./helpers.mjs";

test("progress: the iterator, onProgress and the sidecar's event each see the call's chunks in order", async (t) => {
  const sc = await start(t);
  const all = [];
  sc.on("progress", (p) => all.push(p));
  const viaOption = { stdout: "", stderr: "" };
  const script = "for i in 1 2 3; do echo out$i; sleep 0.05; done; echo err >&2";
  const call = sc.invoke("bash", { command: script }, { id: "c-prog", onProgress: (p) => (viaOption[p.stream] += p.chunk) });
  const other = sc.invoke("bash", { command: "echo other" });
  const iterated = { stdout: "", stderr: "" };
  for await (const p of call.progress()) iterated[p.stream] += p.chunk; // chunks may join lines
  assert.equal(call.id, "c-prog");
  assert.deepEqual(iterated, { stdout: "out1\nout2\nout3\n", stderr: "err\n" });
  assert.deepEqual(viaOption, iterated);
  const res = await call;
  assert.equal(res.data.stdout, "out1\nout2\nout3\n");
  await other;
  assert.ok(all.some((p) => p.callId === other.id && p.chunk === "other\n"));
  assert.ok(!iterated.stdout.includes("other"), "another call's output is not this call's");
});

test("an iterator over a call that fails throws the call's error", async (t) => {
  const sc = await start(t);
  const ac = new AbortController();
  const call = sc.invoke("bash", { command: "echo started; exec sleep 600" }, { signal: ac.signal });
  const seen = [];
  await assert.rejects(
    (async () => {
      for await (const p of call.progress()) {
        seen.push(p.chunk);
        ac.abort();
      }
    })(),
    (e) => e.code === -32800,
  );
  assert.deepEqual(seen, ["started\n"]);
});

test("cancel with an AbortSignal: $/cancelRequest, then -32800 once the command is dead", async (t) => {
  const sc = await start(t);
  const ac = new AbortController();
  const call = sc.invoke("bash", { command: "echo started; exec sleep 600" }, { signal: ac.signal });
  await once(call, "progress");
  ac.abort();
  const err = await call.then(() => null, (e) => e);
  assert.ok(err instanceof RpcError);
  assert.equal(err.code, -32800);
  assert.equal(err.kind, "cancelled");
  assert.equal((await sc.ping()).status, "ok", "the sidecar goes on");
});

test("a signal aborted before the call rejects without sending it; AbortSignal.timeout works as a deadline", async (t) => {
  const sc = await start(t);
  const err = await sc.invoke("bash", { command: "echo never" }, { signal: AbortSignal.abort() }).then(() => null, (e) => e);
  assert.equal(err.code, -32800);
  assert.match(err.message, /cancelled before it was sent/);
  const late = await sc.invoke("bash", { command: "exec sleep 600" }, { signal: AbortSignal.timeout(200) }).then(() => null, (e) => e);
  assert.equal(late.code, -32800);
  assert.deepEqual(await sc.listSessions(), { sessions: [] });
});

test("a crash of the sidecar (kill -9) rejects every pending call with the exit, and every later one", async (t) => {
  const sc = await start(t, { onAskUser: () => new Promise(() => {}) });
  const pending = [
    sc.invoke("bash", { command: "echo a; exec sleep 600" }),
    sc.invoke("bash", { command: "exec sleep 600" }),
    sc.invoke("ask_user", { intro: "?", questions: [{ id: "q", text: "Never answered?", type: "text" }] }),
  ];
  await once(pending[0], "progress");
  const exit = once(sc, "exit");
  process.kill(sc.pid, "SIGKILL");
  const results = await Promise.allSettled(pending);
  for (const r of results) {
    assert.equal(r.status, "rejected");
    assert.ok(r.reason instanceof SidecarExitError, String(r.reason));
    assert.equal(r.reason.signal, "SIGKILL");
    assert.equal(r.reason.beforeReady, false);
    assert.match(r.reason.message, new RegExp(`steerable-sidecar \\(pid ${sc.pid}\\) was killed by SIGKILL`));
  }
  assert.deepEqual(await exit, [{ code: null, signal: "SIGKILL" }]);
  await assert.rejects(sc.ping(), SidecarExitError);
  assert.deepEqual(await sc.dispose(), { code: null, signal: "SIGKILL" });
});

test("1,000 concurrent invokes: every one answered, each with its own result", async (t) => {
  const files = {};
  for (let i = 0; i < 10; i++) files[`f${i}.txt`] = `file ${i}\n`;
  // All of them in flight at once: with the default cap (64, as many
  // queued) the sidecar answers -32003 busy when no slot frees within a
  // second, which a loaded machine can take.
  const sc = await start(t, { files, env: { STEERABLE_MAX_INFLIGHT: "1000" } });
  const calls = Array.from({ length: 1000 }, (_, i) => sc.invoke("read_file", { path: `f${i % 10}.txt` }, { id: `c${i}` }));
  const results = await Promise.all(calls);
  results.forEach((res, i) => {
    assert.equal(res.success, true, res.error);
    assert.equal(res.data.content, `file ${i % 10}\n`);
  });
  assert.equal((await sc.ping()).status, "ok");
});
