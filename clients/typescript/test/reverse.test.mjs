// Reverse requests: every handler answers its request; a missing handler
// answers -32601 (the sidecar does not wait); a handler's failure reaches
// the sidecar as an error; a cancelled call aborts the handler's signal.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { start } from "./helpers.mjs";

const question = {
  intro: "One question.",
  questions: [{ id: "db", text: "Which database?", type: "select", options: ["Postgres", "SQLite"] }],
};
const env = { STEERABLE_APPROVALS: "host", STEERABLE_WEB_SEARCH_PROVIDER: "host" };

test("onAskUser, onApproval, onHostTool, onWebSearch answer their reverse requests", async (t) => {
  const seen = {};
  const sc = await start(t, {
    env,
    onAskUser: (req) => {
      seen.ask = req;
      return { answers: { db: req.questions[0].options[0].label } };
    },
    onApproval: async (req) => {
      seen.approval = req;
      return req.arguments.command === "echo allowed" ? { decision: "allow" } : { decision: "deny", reason: "not that one" };
    },
    onHostTool: (call) => ({ success: true, message: `ran ${call.name}`, data: { echoed: call.arguments } }),
    onWebSearch: (req) => {
      seen.search = req;
      return { results: [{ title: "Landlock", url: "https://landlock.io/", snippet: "Unprivileged access control" }] };
    },
  });

  const asked = await sc.invoke("ask_user", question, { id: "c-ask" });
  assert.equal(asked.success, true);
  assert.deepEqual(asked.data.answers, { db: "Postgres" });
  assert.equal(seen.ask.callId, "c-ask");
  assert.deepEqual(seen.ask.questions[0].options, [{ label: "Postgres" }, { label: "SQLite" }]);

  const allowed = await sc.invoke("bash", { command: "echo allowed" }, { id: "c-bash" });
  assert.equal(allowed.success, true);
  assert.equal(allowed.data.stdout, "allowed\n");
  assert.deepEqual(seen.approval, { callId: "c-bash", toolName: "bash", arguments: { command: "echo allowed" }, mode: "local" });
  const denied = await sc.invoke("bash", { command: "echo denied" });
  assert.equal(denied.success, false);
  assert.equal(denied.error, "approval_denied");
  assert.match(denied.message, /not that one/);
  const consented = await sc.invoke("bash", { command: "echo consented" }, { consentGranted: true });
  assert.equal(consented.data.stdout, "consented\n", "consentGranted skips the approval");

  await sc.registerHostTools([{ name: "create_event", description: "Create an event.", parameters: { type: "object" } }]);
  const hosted = await sc.invoke("create_event", { title: "lunch" });
  assert.equal(hosted.message, "ran create_event");
  assert.deepEqual(hosted.data.echoed, { title: "lunch" });

  const searched = await sc.invoke("web_search", { query: "go landlock", allowed_domains: ["landlock.io"] });
  assert.equal(searched.success, true, searched.error);
  assert.equal(searched.data.results[0].url, "https://landlock.io/");
  assert.deepEqual(seen.search, { query: "go landlock", maxResults: 8, allowedDomains: ["landlock.io"], blockedDomains: [] });
});

test("a missing handler answers -32601 at once: every tool that needed it says so, nothing waits", async (t) => {
  const sc = await start(t, { env });
  const asked = await sc.invoke("ask_user", question);
  assert.equal(asked.data.cancelled, true);
  assert.match(asked.message, /the host does not handle ask_user.request/);
  const approval = await sc.invoke("bash", { command: "echo hi" });
  assert.equal(approval.error, "approval_denied");
  assert.match(approval.message, /-32601.*no onApproval handler/);
  const search = await sc.invoke("web_search", { query: "x" });
  assert.match(search.error, /-32601.*no onWebSearch handler/);
  await sc.registerHostTools([{ name: "create_event", description: "x", parameters: { type: "object" } }]);
  const hosted = await sc.invoke("create_event", {});
  assert.equal(hosted.data.hostError.code, -32601);
  assert.match(hosted.error, /no onHostTool handler/);
});

test("a handler that throws: the sidecar gets its message as an error reply", async (t) => {
  const sc = await start(t, {
    onAskUser: () => {
      throw new Error("the dialog crashed");
    },
    onHostTool: async () => {
      throw new Error("calendar offline");
    },
  });
  const asked = await sc.invoke("ask_user", question);
  assert.match(asked.message, /the host answered with an error: onAskUser failed: the dialog crashed\)/);
  await sc.registerHostTools([{ name: "create_event", description: "x", parameters: { type: "object" } }]);
  const hosted = await sc.invoke("create_event", {});
  assert.deepEqual(hosted.data.hostError, { code: -32603, message: "onHostTool failed: calendar offline" });
});

test("handlers set after spawn replace the ones given to it", async (t) => {
  const sc = await start(t, { onAskUser: () => ({ answers: { db: "first" } }) });
  sc.setHandlers({ onAskUser: () => ({ answers: { db: "second" } }) });
  assert.equal((await sc.invoke("ask_user", question)).data.answers.db, "second");
  sc.setHandlers({ onAskUser: undefined });
  assert.equal((await sc.invoke("ask_user", question)).data.cancelled, true);
});

test("cancelling the tool call aborts the handler's signal (the sidecar sent $/cancelRequest)", async (t) => {
  let entered;
  const handlerEntered = new Promise((resolve) => (entered = resolve));
  const sc = await start(t, {
    onAskUser: (_req, { signal }) => {
      entered(signal);
      return new Promise(() => {}); // a dialog nobody answers
    },
  });
  const ac = new AbortController();
  const call = sc.invoke("ask_user", question, { signal: ac.signal });
  const handlerSignal = await handlerEntered;
  assert.equal(handlerSignal.aborted, false);
  ac.abort();
  await assert.rejects(call, (e) => e.code === -32800);
  if (!handlerSignal.aborted) await once(handlerSignal, "abort");
  assert.match(handlerSignal.reason.message, /the sidecar cancelled ask_user.request/);
});
