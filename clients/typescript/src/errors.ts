// The errors the client rejects with. Every one says what happened and, where
// the host can do something about it, what to do.

/** Base class of every error this client raises. */
export class SidecarError extends Error {
  /** The sidecar's last stderr lines, for errors that end with its process. */
  readonly stderr: readonly string[];

  constructor(message: string, stderr: readonly string[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SidecarError";
    this.stderr = stderr;
  }
}

/**
 * RpcError is the sidecar's JSON-RPC error reply to a request (SPEC §1): an
 * envelope problem, a cancellation (-32800), a busy queue (-32003), a plugin
 * in the wrong state (-32010)… A tool that runs and fails is not one: it is
 * a ToolResult with success false.
 */
export class RpcError extends SidecarError {
  /** The JSON-RPC error code (-32602 invalid params, -32800 cancelled, …). */
  readonly code: number;
  /** data.kind: the category of the code ("invalid_params", "cancelled", …). */
  readonly kind: string | undefined;
  /** The error's data object as sent (data.errors lists schema failures). */
  readonly data: unknown;
  /** The method of the request that failed. */
  readonly method: string;

  constructor(method: string, code: number, message: string, data?: unknown) {
    super(message); // the sidecar's own words; they name the method where it matters
    this.name = "RpcError";
    this.method = method;
    this.code = code;
    this.data = data;
    const kind = (data as { kind?: unknown } | undefined)?.kind;
    this.kind = typeof kind === "string" ? kind : undefined;
  }
}

/** The code of a cancelled request (`$/cancelRequest`, or shutdown). */
export const CANCELLED = -32800;
/** The code of an unknown method, also the answer to a reverse request this host has no handler for. */
export const METHOD_NOT_FOUND = -32601;

/**
 * SidecarExitError: the sidecar's process ended — before it was ready (its
 * own boot error is the message), or while requests were pending (each of
 * them rejects with this error), or it was killed.
 */
export class SidecarExitError extends SidecarError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether the process ended before lifecycle.ready. */
  readonly beforeReady: boolean;

  constructor(message: string, exitCode: number | null, signal: NodeJS.Signals | null, beforeReady: boolean, stderr: readonly string[]) {
    super(message, stderr);
    this.name = "SidecarExitError";
    this.exitCode = exitCode;
    this.signal = signal;
    this.beforeReady = beforeReady;
  }
}

/** BinaryNotFoundError: no steerable-sidecar binary where the client looked. */
export class BinaryNotFoundError extends SidecarError {
  /** Every place looked at, in order, with why it did not do. */
  readonly tried: readonly string[];

  constructor(message: string, tried: readonly string[]) {
    super(message);
    this.name = "BinaryNotFoundError";
    this.tried = tried;
  }
}
