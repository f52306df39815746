// The wire types in src/protocol.ts are generated from protocol/schema: this
// test fails when a schema changed and `npm run gen` was not run.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { generate, outFile, schemaDir } from "../scripts/gen-protocol.mjs";

test("src/protocol.ts is what protocol/schema generates (run `npm run gen` in clients/typescript if not)", () => {
  assert.equal(readFileSync(outFile, "utf8"), generate(), "src/protocol.ts is out of date with protocol/schema: run `npm run gen` in clients/typescript");
});

test("a schema change changes the generated types (the check above can fail)", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "schema-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(schemaDir, dir, { recursive: true });
  const file = join(dir, "tool.list.params.json");
  const schema = JSON.parse(readFileSync(file, "utf8"));
  schema.properties.limit = { type: "integer" };
  writeFileSync(file, JSON.stringify(schema));
  const changed = generate(dir);
  assert.notEqual(changed, generate());
  assert.match(changed, /export interface ToolListParams \{[^}]*limit\?: number;/);
});

test("a schema keyword the generator does not know fails loudly instead of typing it wrongly", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "schema-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(schemaDir, dir, { recursive: true });
  const file = join(dir, "plugin.params.json");
  const schema = JSON.parse(readFileSync(file, "utf8"));
  schema.properties.name.oneOf = [{ type: "string" }];
  writeFileSync(file, JSON.stringify(schema));
  assert.throws(() => generate(dir), /plugin.params.json\/properties\/name: schema keyword oneOf is not supported/);
});
