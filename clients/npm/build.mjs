#!/usr/bin/env node
// Builds the npm packages of the binary in the esbuild pattern: one package
// per release target (steerable-sidecar-linux-x64, …, each with os and cpu
// fields and its binary) and the main package, steerable-sidecar, listing
// them as optionalDependencies, with a `bin` shim and binaryPath(). npm
// installs only the platform package whose os and cpu match.
//
//   node clients/npm/build.mjs --version VERSION --dist dist [--pack]
//
// reads the release binaries dist/steerable-sidecar-OS-ARCH[.exe] (make
// release) and writes dist/npm/<package>/ for each, plus the tarballs with
// --pack. --binary TARGET=PATH (repeatable) takes a target's binary from
// elsewhere instead (the packaging test uses it).
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The release targets (Makefile TARGETS) with Node's names for them. */
export const targets = [
  { goos: "linux", goarch: "amd64", os: "linux", cpu: "x64" },
  { goos: "linux", goarch: "arm64", os: "linux", cpu: "arm64" },
  { goos: "darwin", goarch: "amd64", os: "darwin", cpu: "x64" },
  { goos: "darwin", goarch: "arm64", os: "darwin", cpu: "arm64" },
  { goos: "windows", goarch: "amd64", os: "win32", cpu: "x64" },
  { goos: "windows", goarch: "arm64", os: "win32", cpu: "arm64" },
].map((t) => ({ ...t, key: `${t.os}-${t.cpu}`, pkg: `steerable-sidecar-${t.os}-${t.cpu}`, exe: t.os === "win32" ? "steerable-sidecar.exe" : "steerable-sidecar" }));

/**
 * npmVersion turns a git-describe version (v1.2.0, v1.2.0-3-gabc1234,
 * 3f2a1b0-dirty) into a semver npm accepts; an untagged build becomes a
 * 0.0.0-dev prerelease.
 */
export function npmVersion(version) {
  const m = /^v?(\d+\.\d+\.\d+)(-[0-9A-Za-z.-]+)?$/.exec(version);
  if (m) return m[1] + (m[2] ?? "");
  const id = version.replace(/[^0-9A-Za-z-]+/g, "-").replace(/^-+|-+$/g, "") || "unknown";
  return `0.0.0-dev.${id}`;
}

/** build writes every package under out and returns their directories (the main package last). */
export function build({ version, dist, out, binaries = {} }) {
  const v = npmVersion(version);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const dirs = [];
  for (const t of targets) {
    const src = binaries[t.key] ?? join(dist, `steerable-sidecar-${t.goos}-${t.goarch}${t.os === "win32" ? ".exe" : ""}`);
    if (!existsSync(src)) throw new Error(`no binary for ${t.key}: ${src} is missing (run make release)`);
    const dir = join(out, t.pkg);
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(src, join(dir, "bin", t.exe));
    chmodSync(join(dir, "bin", t.exe), 0o755);
    writeJSON(join(dir, "package.json"), {
      name: t.pkg,
      version: v,
      description: `The steerable-sidecar binary for ${t.os} ${t.cpu}; installed by the steerable-sidecar package.`,
      os: [t.os],
      cpu: [t.cpu],
      files: ["bin"],
      preferUnplugged: true,
    });
    writeFileSync(join(dir, "README.md"), `# ${t.pkg}\n\nThe steerable-sidecar binary for ${t.os} ${t.cpu}. Install \`steerable-sidecar\`, which depends on this package on that platform only.\n`);
    dirs.push(dir);
  }
  const main = join(out, "steerable-sidecar");
  cpSync(join(here, "steerable-sidecar"), main, { recursive: true });
  chmodSync(join(main, "bin", "steerable-sidecar.js"), 0o755);
  writeJSON(join(main, "package.json"), {
    name: "steerable-sidecar",
    version: v,
    description: "The steerable-sidecar binary for this platform: an LLM agent's tools, sandboxed, driven over JSON-RPC on stdio.",
    main: "index.js",
    types: "index.d.ts",
    bin: { "steerable-sidecar": "bin/steerable-sidecar.js" },
    files: ["index.js", "index.d.ts", "bin"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(targets.map((t) => [t.pkg, v])),
  });
  dirs.push(main);
  return dirs;
}

/** pack packs every directory with one npm run (npm's start-up is most of its cost) and returns the tarballs' paths (in out). */
export function pack(dirs, out) {
  const args = ["pack", "--silent", "--ignore-scripts", "--pack-destination", out, ...dirs];
  const names = execFileSync("npm", args, { encoding: "utf8" }).trim().split("\n");
  if (names.length !== dirs.length) throw new Error(`npm pack made ${names.length} tarballs for ${dirs.length} packages: ${names.join(", ")}`);
  return names.map((name) => join(out, name.trim()));
}

function writeJSON(path, value) {
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

function parseArgs(argv) {
  const opts = { binaries: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--pack") opts.pack = true;
    else if (a === "--version") opts.version = argv[++i];
    else if (a === "--dist") opts.dist = argv[++i];
    else if (a === "--binary") {
      const [key, path] = argv[++i].split("=");
      opts.binaries[key] = resolve(path);
    } else throw new Error(`unknown argument ${a}; usage: build.mjs --version V --dist DIR [--binary OS-CPU=PATH] [--pack]`);
  }
  if (!opts.version || !opts.dist) throw new Error("usage: build.mjs --version V --dist DIR [--binary OS-CPU=PATH] [--pack]");
  return opts;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    const opts = parseArgs(process.argv.slice(2));
    const out = resolve(opts.dist, "npm");
    const dirs = build({ version: opts.version, dist: resolve(opts.dist), out, binaries: opts.binaries });
    const made = opts.pack ? pack(dirs, out) : dirs;
    for (const m of made) console.log(m);
  } catch (err) {
    console.error(`build.mjs: ${err.message}`);
    process.exit(1);
  }
}
