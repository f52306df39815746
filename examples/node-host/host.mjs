// A Node host on steerable-sidecar-client: spawn the sidecar on a scratch
// workspace, answer its questions, call two tools, shut down.
//
//   node examples/node-host/host.mjs [path/to/steerable-sidecar]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSidecar } from "../../clients/typescript/dist/index.js"; // "steerable-sidecar-client" once installed

const workspace = mkdtempSync(join(tmpdir(), "sidecar-node-"));
writeFileSync(join(workspace, "hello.txt"), "hello from node\n");
// A real host shows the questions to the person; this one picks the first option.
const firstOption = (q) => q.options?.[0]?.value ?? q.options?.[0]?.label ?? "typed by the node host";

try {
  const sidecar = await spawnSidecar({
    binary: process.argv[2], // default: $STEERABLE_SIDECAR_BIN, the steerable-sidecar npm package, PATH
    cwd: workspace,
    onAskUser: ({ questions }) => ({ answers: Object.fromEntries(questions.map((q) => [q.id, firstOption(q)])) }),
  });
  console.log(`sidecar ${sidecar.info.version} ready, ${(await sidecar.listTools({ view: "model" })).length} tools for the model`);
  const read = await sidecar.invoke("read_file", { path: "hello.txt" });
  console.log(`read_file: ${JSON.stringify(read.data.content)}`);
  const question = { id: "db", text: "Which database?", type: "select", options: ["Postgres", "SQLite"] };
  console.log(`ask_user: ${(await sidecar.invoke("ask_user", { intro: "One question.", questions: [question] })).message}`);
  console.log(`a misspelt tool: ${(await sidecar.invoke("raed_file", {})).error}`); // a ToolResult, not an exception
  await sidecar.dispose();
  console.log("node host: ok");
} catch (err) {
  console.error(`node host: ${err.message}`);
  process.exitCode = 1;
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
