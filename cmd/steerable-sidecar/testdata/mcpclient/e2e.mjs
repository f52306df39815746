// End-to-end scenarios of `steerable-sidecar mcp` driven by the official MCP
// TypeScript SDK client (run by mcp_node_test.go through the testdata/mcpnode
// scripts). Usage: node e2e.mjs SCENARIO WORKSPACE [sidecar flags...]
//
// Each scenario prints one line per fact for the script to match, and throws
// (exit 1) when the server breaks the protocol or a mapping.
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
  LATEST_PROTOCOL_VERSION,
} from "@modelcontextprotocol/sdk/types.js";

const [scenario, workspace, ...flags] = process.argv.slice(2);

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

async function connect({ capabilities = {}, args = ["--cwd", workspace], setup, env = {} } = {}) {
  const transport = new StdioClientTransport({
    command: "steerable-sidecar",
    args: ["mcp", "--log-level", "warn", ...args, ...flags],
    env: { ...process.env, ...env },
    stderr: "inherit",
  });
  let negotiated = null;
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: "e2e", version: "1.0.0" }, { capabilities });
  setup?.(client);
  await client.connect(transport);
  return { client, negotiated: () => negotiated };
}

// jsonResults: STEERABLE_MCP_RESULTS=json, where structuredContent is also
// serialised as a second text block; the default (model) sends a built-in
// tool's text form instead, and structuredContent without its payload.
const jsonResults = process.env.STEERABLE_MCP_RESULTS === "json";

function data(res) {
  check(res.structuredContent && typeof res.structuredContent === "object", "structuredContent is an object");
  if (jsonResults) {
    const rendered = JSON.parse(res.content[1].text);
    check(JSON.stringify(rendered) === JSON.stringify(res.structuredContent), "the second text block renders structuredContent");
  }
  return res.structuredContent;
}

// bashStdout is a bash result's stdout: in the model shape the text between
// "stdout:\n" and "\nstderr:".
function bashStdout(res) {
  if (jsonResults) return data(res).stdout;
  const m = /^exit code: \d+\nstdout:\n([\s\S]*)\nstderr:\n/.exec(res.content[0].text);
  check(m, `bash text form: ${res.content[0].text}`);
  return m[1];
}

// fileText is a read_file result's text: in the model shape the text under
// the header line.
function fileText(res) {
  if (jsonResults) return data(res).content;
  const text = res.content[0].text;
  return text.slice(text.indexOf("\n") + 1);
}

const scenarios = {
  // initialize and tools/list: the negotiated version, the capabilities,
  // the model view with its annotations.
  async initialize() {
    const { client, negotiated } = await connect();
    console.log(`protocol ${negotiated()} (client latest ${LATEST_PROTOCOL_VERSION})`);
    check(negotiated() >= "2025-06-18", "negotiated 2025-06-18 or newer");
    console.log(`server ${client.getServerVersion().name}`);
    console.log(`tools.listChanged ${client.getServerCapabilities().tools?.listChanged}`);
    const { tools } = await client.listTools();
    console.log(`tools ${tools.map((t) => t.name).join(",")}`);
    for (const name of ["read_file", "write_file", "bash"]) {
      const t = tools.find((t) => t.name === name);
      console.log(`${name} title=${t.title} ${JSON.stringify(t.annotations)}`);
    }
    await client.close();
  },

  // read_file → edit_file with the version; a stale version is refused.
  async cas() {
    const { client } = await connect();
    const read = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    check(!read.isError, "read_file succeeds");
    const v1 = data(read).version;
    const edit = (version, oldText, newText) =>
      client.callTool({ name: "edit_file", arguments: { path: "notes.txt", expectedVersion: version, edits: [{ oldText, newText }] } });
    const ok = await edit(v1, "beta", "gamma");
    check(!ok.isError, `edit at the read version: ${ok.content[0].text}`);
    console.log(`edited version changed ${data(ok).version !== v1}`);
    const stale = await edit(v1, "alpha", "omega");
    console.log(`stale isError ${stale.isError}: ${stale.content[0].text}`);
    await client.close();
  },

  // bash streams progress; aborting a call sends notifications/cancelled,
  // which kills the command.
  async bash() {
    const { client } = await connect();
    const chunks = [];
    // The trailing sleep keeps "two" from arriving in the same read as the
    // result: this client runs progress handlers in a microtask, after the
    // result (read in the same chunk) has already removed the handler.
    const res = await client.callTool({ name: "bash", arguments: { command: "echo one; sleep 0.5; echo two; sleep 0.3" } }, undefined, {
      onprogress: (p) => chunks.push(p.message),
    });
    // Chunks are batched (at most one notification per 100 ms per stream).
    console.log(`progress ${chunks.length >= 1 ? "received" : "missing"} ${JSON.stringify(chunks.join(""))}`);
    console.log(`stdout ${JSON.stringify(bashStdout(res))}`);
    const abort = new AbortController();
    const marker = `mcp-node-cancel-${process.pid}`;
    const long = client.callTool({ name: "bash", arguments: { command: `echo started; exec -a ${marker} sleep 60` } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort("user pressed stop"),
    });
    const outcome = await long.then(() => "answered", (e) => `rejected: ${e.name}`);
    console.log(`cancelled call ${outcome}`);
    console.log(`marker ${marker}`);
    // The session goes on after the cancellation.
    const after = await client.callTool({ name: "bash", arguments: { command: "echo after" } });
    console.log(`after ${JSON.stringify(bashStdout(after))}`);
    await client.close();
  },

  // ask_user becomes an elicitation the client answers.
  async elicit() {
    const asked = [];
    const { client } = await connect({
      capabilities: { elicitation: { form: {} } },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push(req.params);
          return { action: "accept", content: { env: "prod", checks: ["lint"], note: "ship it" } };
        }),
    });
    const { tools } = await client.listTools();
    console.log(`ask_user offered ${tools.some((t) => t.name === "ask_user")}`);
    const res = await client.callTool({
      name: "ask_user",
      arguments: {
        intro: "Before I deploy:",
        questions: [
          { id: "env", text: "Which environment?", type: "select", options: [{ label: "staging" }, { label: "prod" }] },
          { id: "checks", text: "Which checks?", type: "select", multiSelect: true, options: [{ label: "lint" }, { label: "tests" }] },
          { id: "note", text: "Release note?", type: "text" },
        ],
      },
    });
    const schema = asked[0].requestedSchema;
    console.log(`elicitation message ${JSON.stringify(asked[0].message)} fields ${Object.keys(schema.properties).join(",")}`);
    console.log(`answers ${JSON.stringify(data(res).answers)} cancelled ${data(res).cancelled}`);
    await client.close();
  },

  // tool_search's match joins tools/list after notifications/tools/list_changed.
  async search() {
    let changed;
    const listChanged = new Promise((resolve) => { changed = resolve; });
    const { client } = await connect({
      args: ["--cwd", workspace, "--strategy", "progressive"],
      setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => changed()),
    });
    const before = (await client.listTools()).tools.map((t) => t.name);
    console.log(`listed before ${before.includes("create_calendar_event")}`);
    const res = await client.callTool({ name: "tool_search", arguments: { query: "calendar event" } });
    console.log(`matches ${data(res).matches.map((m) => m.name).join(",")}`);
    await Promise.race([listChanged, new Promise((_, reject) => setTimeout(() => reject(new Error("no list_changed in 10s")), 10000).unref())]);
    console.log("list_changed received");
    const after = (await client.listTools()).tools.map((t) => t.name);
    console.log(`listed after ${after.includes("create_calendar_event")}`);
    const call = await client.callTool({ name: "create_calendar_event", arguments: { title: "standup" } });
    console.log(`called ${call.content[0].text}`);
    await client.close();
  },

  // Without --cwd the workspace is the client's first root.
  async roots() {
    const { client } = await connect({
      args: [],
      capabilities: { roots: { listChanged: true } },
      setup: (c) => c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${workspace}`, name: "ws" }] })),
    });
    const res = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    console.log(`read from the root ${!res.isError} ${JSON.stringify(fileText(res))}`);
    await client.close();
  },

  // read_file of a PNG: an MCP image block (bytes, never base64 in text);
  // of a notebook: its cells as text.
  async media() {
    const { client } = await connect();
    const png = await client.callTool({ name: "read_file", arguments: { path: "shot.png" } });
    check(!png.isError, `read_file shot.png: ${png.content[0].text}`);
    const img = png.content.find((c) => c.type === "image");
    check(img, "an image block");
    const bytes = Buffer.from(img.data, "base64");
    console.log(`image ${img.mimeType} ${bytes.subarray(1, 4).toString()} ${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`);
    check(!png.content.some((c) => c.type === "text" && c.text.includes(img.data.slice(0, 40))), "no base64 in text");
    console.log(`image metadata ${JSON.stringify(png.structuredContent.mimeType)} scaled=${png.structuredContent.scaled}`);
    const nb = await client.callTool({ name: "read_file", arguments: { path: "nb.ipynb" } });
    check(!nb.isError, `read_file nb.ipynb: ${nb.content[0].text}`);
    console.log(`notebook blocks ${nb.content.map((c) => c.type).join(",")}`);
    console.log(`notebook text ${JSON.stringify(nb.content[0].text.split("\n").slice(2, 4))}`);
    await client.close();
  },

  // STEERABLE_MCP_RESULTS=model: each tool's result is the text the model
  // reads (the file under a header, grep lines, the diff, labelled streams);
  // structuredContent keeps the metadata without that payload.
  async modeltext() {
    const { client } = await connect();
    const call = async (name, args) => {
      const res = await client.callTool({ name, arguments: args });
      check(!res.isError, `${name}: ${res.content[0].text}`);
      check(res.content.length === 1 && res.content[0].type === "text", `${name}: one text block`);
      return res;
    };
    const read = await call("read_file", { path: "a.go" });
    console.log(`read ${JSON.stringify(read.content[0].text.replace(/^\/.*\//, ""))}`);
    console.log(`read structured content=${"content" in read.structuredContent} version=${typeof read.structuredContent.version}`);
    const grep = await call("grep", { query: "func" });
    console.log(`grep ${JSON.stringify(grep.content[0].text)} hits=${"hits" in grep.structuredContent}`);
    const edit = await call("edit_file", { path: "a.go", edits: [{ oldText: "A()", newText: "B()" }] });
    console.log(`edit ${JSON.stringify(edit.content[0].text)}`);
    await client.close();
  },

  // A tools/call over STEERABLE_MAX_FRAME_BYTES: the SDK matches the
  // -32600 reply to its call (the id is the call's), which fails at once
  // rather than at the SDK's 60 s timeout; the session serves on.
  async oversized() {
    const { client } = await connect();
    const started = Date.now();
    let failure = null;
    try {
      await client.callTool({ name: "write_file", arguments: { path: "big.txt", content: "x".repeat(8000) } }, undefined, { timeout: 20000 });
    } catch (e) {
      failure = e;
    }
    check(failure !== null, "the oversized call fails");
    console.log(`oversized code ${failure.code} in time ${Date.now() - started < 10000}: ${failure.message}`);
    const res = await client.callTool({ name: "write_file", arguments: { path: "small.txt", content: "ok" } });
    console.log(`after isError ${res.isError === true}`);
    await client.close();
  },

  // Every listed built-in has an outputSchema, and each is called at least
  // once: callTool checks the structuredContent of each success against it
  // (and throws when it does not conform). A loopback server plays Tavily
  // (STEERABLE_WEB_SEARCH_BASE_URL) and the forward proxy of a public
  // address (HTTP_PROXY) for web_fetch, the one way the binary reaches it.
  async outputschema() {
    const web = http.createServer((req, res) => {
      req.resume();
      if (req.method === "POST" && req.url.endsWith("/search")) {
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ results: [{ title: "Go", url: "https://go.dev/", content: "The Go language" }] }));
        return;
      }
      res.setHeader("Content-Type", "text/html");
      res.end("<html><head><title>Page</title></head><body><h1>Hello</h1><p>from the proxy</p></body></html>");
    });
    await new Promise((resolve) => web.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${web.address().port}`;
    const { client } = await connect({
      capabilities: { elicitation: { form: {} } },
      env: {
        STEERABLE_RUN_CODE: "1",
        STEERABLE_WEB_SEARCH_PROVIDER: "tavily",
        STEERABLE_WEB_SEARCH_API_KEY: "test-key",
        STEERABLE_WEB_SEARCH_BASE_URL: base,
        HTTP_PROXY: base,
      },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { q: "yes" } })),
    });
    const { tools } = await client.listTools();
    // (test_* are the test binary's own tools, registered as built-ins.)
    const missing = tools
      .filter((t) => t._meta?.["steerable.dev/source"] === "builtin" && !t.name.startsWith("test_") && !t.outputSchema)
      .map((t) => t.name);
    check(missing.length === 0, `built-ins without an outputSchema: ${missing}`);
    const rf = tools.find((t) => t.name === "read_file").outputSchema;
    console.log(`read_file outputSchema content=${"content" in rf.properties} ${JSON.stringify(rf.description)}`);
    const called = new Set();
    let session;
    const call = async (name, args) => {
      const res = await client.callTool({ name, arguments: args }); // validates structuredContent
      check(!res.isError, `${name}: ${res.content[0]?.text}`);
      called.add(name);
      return res;
    };
    await call("read_file", { path: "a.go" });
    await call("read_file", { path: "shot.png" });
    await call("read_file", { path: "nb.ipynb" });
    await call("write_file", { path: "new.txt", content: "new\n" });
    await call("edit_file", { path: "a.go", edits: [{ oldText: "A()", newText: "B()" }] });
    await call("apply_patch", { patch: "*** Begin Patch\n*** Add File: b.go\n+package a\n*** End Patch\n" });
    await call("notebook_edit", { path: "nb.ipynb", cellId: "intro", editMode: "replace", newSource: "# New title" });
    for (const output of ["hits", "files", "count"]) await call("grep", { query: "package", output });
    await call("glob", { pattern: "*.go" });
    await call("bash", { command: "echo out; echo err >&2" });
    session = (await call("bash_session", { command: "echo hi" })).structuredContent.sessionId;
    await call("write_stdin", { sessionId: session, chars: "exit\n" });
    await call("todo_write", { todos: [{ id: "1", content: "ship", status: "in_progress" }] });
    await call("tool_search", { query: "calendar" });
    await call("ask_user", { intro: "One thing:", questions: [{ id: "q", text: "Go on?", type: "text" }] });
    await call("web_fetch", { url: "http://93.184.215.14/page" });
    await call("web_search", { query: "go" });
    await call("run_code", { description: "sum", code: "return 1 + 1" });
    // An error is returned, not thrown: it carries no structuredContent to
    // fail the schema (the SDK validates an error's too).
    const missingFile = await client.callTool({ name: "read_file", arguments: { path: "missing.txt" } });
    console.log(`missing isError ${missingFile.isError} structured ${"structuredContent" in missingFile}`);
    const listed = tools.filter((t) => t.outputSchema).map((t) => t.name).sort();
    const unvalidated = listed.filter((n) => !called.has(n));
    check(unvalidated.length === 0, `listed with an outputSchema but not called: ${unvalidated}`);
    console.log(`validated ${listed.join(",")}`);
    await client.close();
    web.close();
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}
await run();
