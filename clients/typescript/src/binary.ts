// Finding the steerable-sidecar binary. The order is the one a host would
// pick by hand: what it was told (the option), what its environment says
// (STEERABLE_SIDECAR_BIN), what npm installed for this platform (the
// steerable-sidecar package and its per-platform package), then PATH. A
// named path that is wrong is an error at once — falling back to another
// binary would run a version the host did not ask for.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { BinaryNotFoundError } from "./errors.js";

/** Where a binary was found. */
export interface FoundBinary {
  path: string;
  /** "option", "STEERABLE_SIDECAR_BIN", "npm package steerable-sidecar" or "PATH". */
  from: string;
}

export const BINARY_ENV = "STEERABLE_SIDECAR_BIN";
const exeName = process.platform === "win32" ? "steerable-sidecar.exe" : "steerable-sidecar";

/** The shape of the steerable-sidecar npm package's entry point. */
interface BinaryPackage {
  binaryPath(): string;
}

/**
 * findBinary returns the binary to spawn: `binary` when given, else
 * $STEERABLE_SIDECAR_BIN, else the one the steerable-sidecar npm package
 * installed for this platform, else steerable-sidecar on PATH.
 */
export async function findBinary(binary?: string, env: NodeJS.ProcessEnv = process.env): Promise<FoundBinary> {
  if (binary) return named(binary, "option", "the binary option");
  const fromEnv = env[BINARY_ENV];
  if (fromEnv) return named(fromEnv, BINARY_ENV, `${BINARY_ENV}`);
  const tried: string[] = [`the binary option: not given`, `${BINARY_ENV}: not set`];
  const pkg = await fromPackage();
  if (pkg.path) return { path: pkg.path, from: "npm package steerable-sidecar" };
  tried.push(`npm package steerable-sidecar: ${pkg.why}`);
  const onPath = searchPath(env);
  if (onPath) return { path: onPath, from: "PATH" };
  tried.push(`PATH: no ${exeName} in ${env.PATH ? "any of its directories" : "it (PATH is empty)"}`);
  throw new BinaryNotFoundError(
    `steerable-sidecar binary not found; looked at:\n  ${tried.join("\n  ")}\n` +
      `Pass {binary: "/path/to/steerable-sidecar"}, set ${BINARY_ENV}, \`npm install steerable-sidecar\`, or build it with \`make build\` (bin/steerable-sidecar).`,
    tried,
  );
}

function named(path: string, from: string, what: string): FoundBinary {
  const abs = resolve(path);
  const why = notExecutable(abs);
  if (why) {
    throw new BinaryNotFoundError(
      `steerable-sidecar binary ${JSON.stringify(path)} (from ${what}) ${why}; build it with \`make build\` (bin/steerable-sidecar) or point ${what} at the binary`,
      [`${what}: ${abs} ${why}`],
    );
  }
  return { path: abs, from };
}

/** notExecutable says why path cannot be spawned, or "" when it can. */
function notExecutable(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    return "does not exist";
  }
  if (!st.isFile()) return "is not a file";
  if (process.platform === "win32") return "";
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return "is not executable (chmod +x it)";
  }
  return "";
}

async function fromPackage(): Promise<{ path?: string; why: string }> {
  let pkg: Partial<BinaryPackage> & { default?: Partial<BinaryPackage> };
  try {
    pkg = await import("steerable-sidecar" as string);
  } catch {
    return { why: "not installed" };
  }
  // A CommonJS package: its exports are named, or only the default export.
  const binaryPath = pkg.binaryPath ?? pkg.default?.binaryPath;
  if (typeof binaryPath !== "function") return { why: "installed, but it has no binaryPath()" };
  try {
    return { path: unpackedFromAsar(binaryPath()), why: "" };
  } catch (err) {
    return { why: (err as Error).message };
  }
}

/**
 * unpackedFromAsar maps a path inside an Electron app.asar archive to its
 * app.asar.unpacked twin: a binary cannot be executed from inside the
 * archive, and electron-builder unpacks native binaries there (asarUnpack).
 */
export function unpackedFromAsar(path: string): string {
  return path.replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
}

function searchPath(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue; // a relative PATH entry depends on the cwd: never trusted
    const candidate = join(dir, exeName);
    if (!notExecutable(candidate)) return candidate;
  }
  return undefined;
}
