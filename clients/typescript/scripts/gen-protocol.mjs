#!/usr/bin/env node
// Generates src/protocol.ts — the wire types — from the JSON Schemas in
// protocol/schema, the same files the sidecar validates against, so the
// client's types cannot say something the sidecar does not accept.
//
//   node scripts/gen-protocol.mjs           write src/protocol.ts
//   node scripts/gen-protocol.mjs --check   exit 1 when it is out of date
//
// The generator knows the subset of JSON Schema those files use: objects
// (properties, required, additionalProperties), arrays, enum, const, anyOf,
// type lists and $ref (to another file, or to its #/$defs). It fails loudly
// on anything else, so a schema that grows a new keyword is noticed here
// rather than typed wrongly.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const schemaDir = join(here, "..", "..", "..", "protocol", "schema");
export const outFile = join(here, "..", "src", "protocol.ts");
// The names of nested types and renamed titles, shared with the Python
// generator so both clients call a type the same.
export const namesFile = join(here, "..", "..", "type-names.json");

// Keywords that constrain values but not their TypeScript type.
const ignored = new Set([
  "$schema", "$id", "title", "description", "examples", "minItems", "maxItems",
  "minLength", "maxLength", "minimum", "maximum", "pattern", "format", "$defs",
  "contentEncoding", "contentMediaType",
]);

/** generate returns the text of src/protocol.ts for the schemas in dir. */
export function generate(dir = schemaDir, namesPath = namesFile) {
  const { titles, nested } = JSON.parse(readFileSync(namesPath, "utf8"));
  const title = (schema) => titles[schema.title] ?? schema.title;
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  const schemas = new Map(files.map((f) => [f, JSON.parse(readFileSync(join(dir, f), "utf8"))]));
  const out = [];
  const done = new Map(); // "file#pointer" → type name
  const names = new Set();

  const declare = (name, schema, body) => {
    if (names.has(name)) throw new Error(`two schema types would both be named ${name}`);
    names.add(name);
    out.push(docComment(schema.description, "") + body);
  };

  // named emits the declaration of the schema at file#ptr under name (once)
  // and returns the name.
  const named = (file, ptr, schema, name) => {
    const key = `${file}#${ptr}`;
    if (done.has(key)) return done.get(key);
    name = nested[key] ?? name;
    done.set(key, name);
    if (isObject(schema)) {
      declare(name, schema, `export interface ${name} ${objectBody(file, ptr, schema, name, "")}\n`);
    } else {
      declare(name, schema, `export type ${name} = ${typeOf(file, ptr, schema, name)};\n`);
    }
    return name;
  };

  const ref = (file, target) => {
    const [refFile, frag] = target.split("#");
    const f = refFile || file;
    const root = schemas.get(f);
    if (!root) throw new Error(`${file}: $ref to unknown file ${target}`);
    if (!frag) return named(f, "", root, title(root));
    const m = /^\/\$defs\/([A-Za-z0-9_]+)$/.exec(frag);
    if (!m || !root.$defs?.[m[1]]) throw new Error(`${file}: unsupported $ref ${target}`);
    return named(f, frag, root.$defs[m[1]], pascal(m[1]));
  };

  // typeOf returns a type expression; nested objects become named
  // interfaces (hint + property name), so hosts can refer to them.
  const typeOf = (file, ptr, s, hint) => {
    checkKeywords(file, ptr, s);
    if (s.$ref) return ref(file, s.$ref);
    if ("const" in s) return literal(s.const);
    if (s.enum) return s.enum.map(literal).join(" | ");
    if (s.anyOf) return s.anyOf.map((a, i) => typeOf(file, `${ptr}/anyOf/${i}`, a, hint)).join(" | ");
    const types = Array.isArray(s.type) ? s.type : [s.type];
    return types.map((t) => {
      switch (t) {
        case "string": return "string";
        case "integer": case "number": return "number";
        case "boolean": return "boolean";
        case "null": return "null";
        case "array": {
          const item = s.items ? typeOf(file, `${ptr}/items`, s.items, singular(hint)) : "unknown";
          return /[ |]/.test(item) ? `Array<${item}>` : `${item}[]`;
        }
        case "object":
          if (!s.properties) return mapType(file, ptr, s, hint);
          return named(file, ptr, s, hint);
        default:
          throw new Error(`${file}${ptr}: unsupported type ${JSON.stringify(t)}`);
      }
    }).join(" | ");
  };

  // mapType is an object without declared properties: a record of its
  // additionalProperties, or of unknown values.
  const mapType = (file, ptr, s, hint) => {
    const ap = s.additionalProperties;
    const value = ap && typeof ap === "object" ? typeOf(file, `${ptr}/additionalProperties`, ap, singular(hint)) : "unknown";
    return `{ [key: string]: ${value} }`;
  };

  const objectBody = (file, ptr, s, name, indent) => {
    const required = new Set(s.required ?? []);
    const lines = ["{"];
    for (const [prop, ps] of Object.entries(s.properties ?? {})) {
      const t = typeOf(file, `${ptr}/properties/${prop}`, ps, name + pascal(prop));
      lines.push(docComment(ps.description, indent + "  ") + `${indent}  ${propName(prop)}${required.has(prop) ? "" : "?"}: ${t};`);
    }
    const ap = s.additionalProperties;
    if (ap === undefined || ap === true) lines.push(`${indent}  [key: string]: unknown;`);
    else if (ap && typeof ap === "object") lines.push(`${indent}  [key: string]: ${typeOf(file, `${ptr}/additionalProperties`, ap, singular(name))};`);
    lines.push(`${indent}}`);
    return lines.join("\n");
  };

  for (const [file, schema] of schemas) {
    if (!schema.title) throw new Error(`${file} has no title: the title names its type`);
    named(file, "", schema, title(schema));
  }
  for (const key of Object.keys(nested)) {
    if (!done.has(key)) throw new Error(`type-names.json names ${key}, which no schema has`);
  }
  return header + out.join("\n");
}

const header = `// Code generated by scripts/gen-protocol.mjs from protocol/schema; DO NOT EDIT.
// Run \`npm run gen\` in clients/typescript after changing a schema.

`;

function isObject(s) {
  return s.type === "object" && s.properties !== undefined;
}

function checkKeywords(file, ptr, s) {
  const known = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref"]);
  for (const k of Object.keys(s)) {
    if (!known.has(k) && !ignored.has(k)) throw new Error(`${file}${ptr}: schema keyword ${k} is not supported by the generator`);
  }
}

function literal(v) {
  return JSON.stringify(v);
}

function pascal(s) {
  return s.replace(/(^|[_.-])([a-z0-9])/g, (_, __, c) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase());
}

function singular(name) {
  return name.endsWith("s") && !name.endsWith("ss") ? name.slice(0, -1) : name;
}

function propName(p) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p) ? p : JSON.stringify(p);
}

function docComment(text, indent) {
  if (!text) return "";
  return `${indent}/** ${text.replace(/\*\//g, "*\\/")} */\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const text = generate();
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(outFile, "utf8");
    } catch {}
    if (current !== text) {
      console.error("src/protocol.ts is out of date with protocol/schema: run `npm run gen` in clients/typescript and commit the result");
      process.exit(1);
    }
  } else {
    writeFileSync(outFile, text);
  }
}
