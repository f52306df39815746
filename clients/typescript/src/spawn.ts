// spawnSidecar: find the binary, start it, drain its stderr, connect, and
// wait for lifecycle.ready — or reject with why it did not come (the
// sidecar's own boot error, a timeout, an abort).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createMessageConnection, type Logger as RpcLogger } from "vscode-jsonrpc/node";
import { findBinary } from "./binary.js";
import { SidecarError, SidecarExitError } from "./errors.js";
import { framingFlag, NotJSONError, readerFor, writerFor, type Framing } from "./framing.js";
import { bootError, defaultLogger, parseLogLine, Tail, type Logger } from "./logs.js";
import type { LifecycleReadyParams } from "./protocol.js";
import { Sidecar, type Handlers } from "./sidecar.js";

/** Options of spawnSidecar. The handlers answer the sidecar's reverse requests. */
export interface SpawnOptions extends Handlers {
  /** The workspace: the directory the tools work in (--cwd). */
  cwd: string;
  /** The binary; default $STEERABLE_SIDECAR_BIN, the steerable-sidecar npm package, then PATH. */
  binary?: string;
  /** Variables added to this process's environment (undefined removes one): STEERABLE_* configuration. */
  env?: Record<string, string | undefined>;
  /** More command-line flags (--no-web-tools, --strict-config, --log-level debug, …). */
  args?: string[];
  /** "newline" (default) or "content-length". */
  framing?: Framing;
  /** Aborting kills a sidecar that is starting, and disposes of a running one. */
  signal?: AbortSignal;
  /** How long to wait for lifecycle.ready; default 60000 ms (plugins load before it). */
  readyTimeoutMs?: number;
  /** Receives every stderr line, parsed; default: warnings and errors to this process's stderr; null drops them. */
  logger?: Logger | null;
}

/** How long after the exit the pipes may stay open (a grandchild holding them) before the exit is reported anyway. */
const pipeCloseGraceMs = 2000;

/**
 * spawnSidecar starts steerable-sidecar in opts.cwd and resolves once it
 * has sent lifecycle.ready. It rejects with BinaryNotFoundError (no binary
 * where it looked), SidecarExitError (the process ended first: its boot
 * error is the message), or SidecarError (timeout, spawn failure), and with
 * the signal's reason when aborted.
 */
export async function spawnSidecar(opts: SpawnOptions): Promise<Sidecar> {
  if (!opts || typeof opts.cwd !== "string" || opts.cwd === "") {
    throw new TypeError("spawnSidecar needs {cwd}: the workspace directory the tools work in");
  }
  opts.signal?.throwIfAborted();
  const env = mergeEnv(opts.env);
  const found = await findBinary(opts.binary, env);
  const framing = opts.framing ?? "newline";
  const args = ["--cwd", opts.cwd, "--quiet-ready", ...framingFlag(framing), ...(opts.args ?? [])];
  const child = spawn(found.path, args, { stdio: ["pipe", "pipe", "pipe"], env, windowsHide: true });
  // A write to a process that died fails with EPIPE; the exit reports it.
  child.stdin.on("error", () => {});

  const logger = opts.logger === undefined ? defaultLogger : opts.logger;
  const tail = new Tail();
  const boot: string[] = []; // stderr until ready: the boot error is in its first lines
  let ready = false;
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
    tail.push(line);
    const entry = parseLogLine(line, child.pid ?? 0);
    if (!ready) {
      if (boot.length < 200) boot.push(line);
      // The default logger leaves a boot error's text to the rejection, which says it.
      if (logger === defaultLogger && entry.level === "text") return;
    }
    logger?.(entry);
  });

  const rpcLogger = clientLogger(logger, child.pid ?? 0);
  const connection = createMessageConnection(readerFor(framing, child.stdout), writerFor(framing, child.stdin), rpcLogger);
  // Read errors (a stdout line that is not JSON) are worth a line once the
  // sidecar is ready; before, they are what it printed instead of starting
  // (a usage text after a bad flag), which its stderr already explains.
  // Write errors only mean the process is gone, which its exit reports.
  connection.onError(([err, msg]) => {
    if (msg === undefined && (ready || !(err instanceof NotJSONError))) rpcLogger.error(err.message);
  });
  const readyNote = new Promise<LifecycleReadyParams>((resolve) => connection.onNotification("lifecycle.ready", resolve));
  const { onAskUser, onApproval, onHostTool, onWebSearch } = opts;
  const sidecar = new Sidecar({
    child,
    connection,
    binary: found.path,
    handlers: { onAskUser, onApproval, onHostTool, onWebSearch },
    stderrTail: () => tail.get(),
  });
  watchExit(child, sidecar);
  connection.listen();

  const spawnFailed = new Promise<never>((_, reject) =>
    child.once("error", (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        reject(new SidecarError(`could not start ${found.path} (found via ${found.from}): ${err.message}`, [], { cause: err }));
      }
    }),
  );
  const exitedFirst = sidecar.exited.then((exit): never => {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const why = bootError(boot);
    throw new SidecarExitError(
      `steerable-sidecar (${found.path}) ${how} before it was ready${why ? ": " + why : " and wrote nothing on stderr"}`,
      exit.code,
      exit.signal,
      true,
      tail.get(),
    );
  });
  const timeoutMs = opts.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new SidecarError(`steerable-sidecar sent no lifecycle.ready within ${timeoutMs} ms (readyTimeoutMs); killed it`, tail.get()));
    }, timeoutMs);
  });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(opts.signal!.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
  });

  try {
    const info = await Promise.race([readyNote, exitedFirst, spawnFailed, timedOut, aborted]);
    ready = true;
    sidecar.markReady(info);
  } catch (err) {
    child.kill("SIGKILL");
    await sidecar.exited.catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
    exitedFirst.catch(() => {});
    spawnFailed.catch(() => {});
  }
  if (opts.signal) {
    const signal = opts.signal;
    const dispose = () => void sidecar.dispose();
    signal.addEventListener("abort", dispose, { once: true });
    sidecar.exited.then(() => signal.removeEventListener("abort", dispose));
  }
  return sidecar;
}

/**
 * watchExit reports the end of the process once its pipes have closed (so
 * every reply it wrote has been read), or a little after the exit when a
 * grandchild still holds them.
 */
function watchExit(child: ReturnType<typeof spawn>, sidecar: Sidecar): void {
  let fallback: NodeJS.Timeout | undefined;
  child.once("exit", (code, signal) => {
    fallback = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      sidecar.processEnded(code, signal);
    }, pipeCloseGraceMs);
    fallback.unref();
  });
  child.once("close", (code, signal) => {
    clearTimeout(fallback);
    sidecar.processEnded(code, signal);
  });
  child.on("error", () => {
    // A spawn that failed has no process: no exit event will come. (Other
    // errors — a kill that failed — change nothing; listening keeps them
    // from being thrown.)
    if (child.pid === undefined) sidecar.processEnded(null, null);
  });
}

function mergeEnv(extra: Record<string, string | undefined> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** clientLogger routes vscode-jsonrpc's own complaints (a stray reply, a line that is not JSON) to the host's logger. */
function clientLogger(logger: Logger | null, pid: number): RpcLogger {
  const log = (level: string) => (message: string) => logger?.({ level, message: `client: ${message}`, fields: {}, raw: message, pid });
  return { error: log("error"), warn: log("warn"), info: log("debug"), log: log("debug") };
}
