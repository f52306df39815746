// Sidecar: one running steerable-sidecar process and its JSON-RPC
// connection. The host calls typed methods; the sidecar's reverse requests
// go to the host's handlers; progress goes to the call it belongs to; a
// process that ends fails every pending call with the reason.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import {
  CancellationTokenSource,
  ConnectionError,
  ResponseError,
  type CancellationToken,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import { ToolCall } from "./call.js";
import { CANCELLED, METHOD_NOT_FOUND, RpcError, SidecarError, SidecarExitError } from "./errors.js";
import type {
  ApprovalRequestParams,
  CheckpointCreateParams,
  CheckpointDiffParams,
  CheckpointDiffResult,
  CheckpointInfo,
  CheckpointListResult,
  CheckpointRestoreParams,
  RestoreResult,
  ToolUndoParams,
  ApprovalRequestResult,
  AskUserRequestParams,
  AskUserRequestResult,
  Health,
  HostToolsRegisterParams,
  HostToolsRegisterResult,
  LifecycleReadyParams,
  LifecycleShutdownParams,
  PluginListResult,
  PluginParams,
  PluginResult,
  ReadStateGetResult,
  ReadStateSeedParams,
  ReadStateSeedResult,
  SessionCloseParams,
  SessionCloseResult,
  SessionListResult,
  ToolCall as WireToolCall,
  ToolDescriptor,
  ToolInvokeParams,
  ToolListParams,
  ToolListResult,
  TodoListParams,
  TodoListResult,
  TodoUpdatedParams,
  ToolProgressParams,
  ToolResult,
  WebSearchRequestParams,
  WebSearchRequestResult,
} from "./protocol.js";

/**
 * HostMethods maps every host → sidecar method the binary serves (SPEC §2)
 * to its params and result. A method the sidecar gains is one line here
 * (its schema's types come from protocol/schema) and one wrapper below.
 */
export interface HostMethods {
  "system.ping": [params: undefined, result: Health];
  "system.shutdown": [params: undefined, result: null];
  "system.shutdown_now": [params: undefined, result: null];
  "tool.list": [params: ToolListParams | undefined, result: ToolListResult];
  "tool.invoke": [params: ToolInvokeParams, result: ToolResult];
  "read_state.seed": [params: ReadStateSeedParams, result: ReadStateSeedResult];
  "read_state.get": [params: undefined, result: ReadStateGetResult];
  "host_tools.register": [params: HostToolsRegisterParams, result: HostToolsRegisterResult];
  "plugin.list": [params: undefined, result: PluginListResult];
  "plugin.enable": [params: PluginParams, result: PluginResult];
  "plugin.disable": [params: PluginParams, result: PluginResult];
  "plugin.unload": [params: PluginParams, result: PluginResult];
  "plugin.reload": [params: PluginParams, result: PluginResult];
  "session.list": [params: undefined, result: SessionListResult];
  "session.close": [params: SessionCloseParams, result: SessionCloseResult];
  "todo.list": [params: TodoListParams | undefined, result: TodoListResult];
  "checkpoint.create": [params: CheckpointCreateParams | undefined, result: CheckpointInfo];
  "checkpoint.list": [params: undefined, result: CheckpointListResult];
  "checkpoint.diff": [params: CheckpointDiffParams, result: CheckpointDiffResult];
  "checkpoint.restore": [params: CheckpointRestoreParams, result: RestoreResult];
  "tool.undo": [params: ToolUndoParams, result: RestoreResult];
}

/** What a reverse-request handler gets besides the params. */
export interface HandlerContext {
  /** Aborted when the sidecar no longer waits ($/cancelRequest): the call was cancelled or timed out. */
  signal: AbortSignal;
}

type Handler<P, R> = (params: P, ctx: HandlerContext) => R | Promise<R>;

/** The host's answers to the sidecar's reverse requests (SPEC §2). A missing one answers -32601, so the sidecar never waits. */
export interface Handlers {
  /** ask_user.request: show the questions, return the answers by question id, or {cancelled: true}. */
  onAskUser?: Handler<AskUserRequestParams, AskUserRequestResult>;
  /** approval.request (with STEERABLE_APPROVALS=host): allow or deny a local or destructive tool call. */
  onApproval?: Handler<ApprovalRequestParams, ApprovalRequestResult>;
  /** tool.invoke of a host tool (registered with registerHostTools): run it, return its ToolResult. */
  onHostTool?: Handler<WireToolCall, ToolResult>;
  /** web_search.request (with STEERABLE_WEB_SEARCH_PROVIDER=host): run the search. */
  onWebSearch?: Handler<WebSearchRequestParams, WebSearchRequestResult>;
}

const INTERNAL_ERROR = -32603;

const reverseMethods: Record<keyof Handlers, string> = {
  onAskUser: "ask_user.request",
  onApproval: "approval.request",
  onHostTool: "tool.invoke",
  onWebSearch: "web_search.request",
};

/** Options of one request. */
export interface RequestOptions {
  /** Aborting sends $/cancelRequest; the request then rejects with RpcError code -32800 once the sidecar has stopped the work (a shell's process group is dead by then). */
  signal?: AbortSignal;
}

/** Options of one tool call. */
export interface InvokeOptions extends RequestOptions {
  /** The ToolCall id (the model's tool-call id); default a fresh "call_<uuid>". Progress notifications carry it. */
  id?: string;
  /** Run without asking for approval (STEERABLE_APPROVALS=host): the person already agreed. */
  consentGranted?: boolean;
  /** Receives the call's tool.progress notifications. */
  onProgress?: (p: ToolProgressParams) => void;
}

/** How the process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of dispose. */
export interface DisposeOptions {
  /** How long to wait for a graceful exit (system.shutdown, then EOF) before SIGKILL; default 10000 ms, above the sidecar's own 5 s drain. */
  graceMs?: number;
}

/** @internal what spawnSidecar hands the constructor. */
export interface SidecarParts {
  child: ChildProcess;
  connection: MessageConnection;
  binary: string;
  handlers: Handlers;
  stderrTail: () => string[];
}

/**
 * Sidecar is a running steerable-sidecar. Create it with spawnSidecar; end
 * it with dispose(). Events: "progress" (every tool.progress), "shutdown"
 * (lifecycle.shutdown), "todos" (todo.updated: the plan todo_write stored),
 * "notification" (method, params) for any other notification, "exit"
 * (ExitInfo).
 */
export class Sidecar extends EventEmitter {
  /** The binary's path. */
  readonly binary: string;
  /** The sidecar's process id. */
  readonly pid: number;
  /** lifecycle.ready's params: version, protocolVersion, pid. */
  info!: LifecycleReadyParams;
  /** Resolves when the process has exited (and its pipes have closed). */
  readonly exited: Promise<ExitInfo>;

  private readonly child: ChildProcess;
  private readonly conn: MessageConnection;
  private readonly handlers: Handlers;
  private readonly stderrTail: () => string[];
  private readonly calls = new Map<string, ToolCall>();
  private exitError: SidecarExitError | undefined;
  private exitInfo: ExitInfo | undefined;
  private disposing: Promise<ExitInfo> | undefined;
  private ready = false;

  /** @internal use spawnSidecar. */
  constructor(parts: SidecarParts) {
    super();
    this.child = parts.child;
    this.conn = parts.connection;
    this.binary = parts.binary;
    this.pid = parts.child.pid ?? 0;
    this.handlers = { ...parts.handlers };
    this.stderrTail = parts.stderrTail;
    this.exited = new Promise((resolve) => this.once("exit", resolve));
    this.wire();
  }

  private wire(): void {
    this.conn.onNotification("tool.progress", (p: ToolProgressParams) => {
      this.calls.get(p.callId)?.progressed(p);
      this.emit("progress", p);
    });
    this.conn.onNotification("lifecycle.shutdown", (p: LifecycleShutdownParams) => {
      this.emit("shutdown", p);
    });
    this.conn.onNotification("todo.updated", (p: TodoUpdatedParams) => {
      this.emit("todos", p);
    });
    this.conn.onUnhandledNotification((n) => {
      if (n.method !== "lifecycle.ready") this.emit("notification", n.method, n.params);
    });
    for (const [key, method] of Object.entries(reverseMethods) as [keyof Handlers, string][]) {
      this.conn.onRequest(method, (params: unknown, token: CancellationToken) => this.answer(key, method, params, token));
    }
  }

  private async answer(key: keyof Handlers, method: string, params: unknown, token: CancellationToken): Promise<unknown> {
    const handler = this.handlers[key] as Handler<unknown, unknown> | undefined;
    if (!handler) {
      return new ResponseError(METHOD_NOT_FOUND, `this host does not answer ${method} (no ${key} handler was given to spawnSidecar)`);
    }
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort(new SidecarError(`the sidecar cancelled ${method}`)));
    try {
      return await handler(params, { signal: ac.signal });
    } catch (err) {
      if (err instanceof ResponseError) throw err;
      // The host's own words, without vscode-jsonrpc's "Request … failed with message:" wrapping.
      return new ResponseError(INTERNAL_ERROR, `${key} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      sub.dispose();
    }
  }

  /** @internal called by spawnSidecar once lifecycle.ready has arrived. */
  markReady(info: LifecycleReadyParams): void {
    this.info = info;
    this.ready = true;
  }

  /** @internal called by spawnSidecar when the process and its pipes are gone. */
  processEnded(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal };
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = this.stderrTail();
    const last = tail.length ? `; its last stderr lines:\n  ${tail.slice(-8).join("\n  ")}` : "";
    this.exitError = new SidecarExitError(
      this.disposing ? `steerable-sidecar ${how} after dispose()` : `steerable-sidecar (pid ${this.pid}) ${how}${last}`,
      code,
      signal,
      !this.ready,
      tail,
    );
    this.conn.dispose(); // rejects every pending request; request() maps it to exitError
    this.emit("exit", this.exitInfo);
  }

  /** Replaces (or, with undefined, removes) reverse-request handlers. */
  setHandlers(handlers: Handlers): this {
    Object.assign(this.handlers, handlers);
    return this;
  }

  /**
   * request sends one host → sidecar method and resolves with its result.
   * The typed wrappers below are built on it.
   */
  request<M extends keyof HostMethods>(method: M, params: HostMethods[M][0], opts?: RequestOptions): Promise<HostMethods[M][1]>;
  request(method: string, params?: unknown, opts?: RequestOptions): Promise<unknown>;
  request(method: string, params?: unknown, opts: RequestOptions = {}): Promise<unknown> {
    if (this.exitError) return Promise.reject(this.exitError);
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new RpcError(method, CANCELLED, "request cancelled before it was sent", { kind: "cancelled" }));
    let source: CancellationTokenSource | undefined;
    let onAbort: (() => void) | undefined;
    if (signal) {
      source = new CancellationTokenSource();
      onAbort = () => source!.cancel();
      signal.addEventListener("abort", onAbort, { once: true });
    }
    let sent: Promise<unknown>;
    try {
      sent = source
        ? this.conn.sendRequest(method, params, source.token)
        : params === undefined
          ? this.conn.sendRequest(method)
          : this.conn.sendRequest(method, params);
    } catch (err) {
      sent = Promise.reject(err);
    }
    const out = sent.then(undefined, (err) => this.failure(method, err));
    if (!signal) return out;
    return out.finally(() => {
      signal.removeEventListener("abort", onAbort!);
      source!.dispose();
    });
  }

  private async failure(method: string, err: unknown): Promise<never> {
    if (this.exitError) throw this.exitError;
    if (err instanceof ConnectionError) {
      // The pipe closed before the exit was seen: the exit says why.
      await this.exited;
      throw this.exitError;
    }
    if (err instanceof ResponseError) throw new RpcError(method, err.code, err.message, err.data);
    throw err;
  }

  // ---- system ----

  /** system.ping: the sidecar's Health. */
  ping(opts?: RequestOptions): Promise<Health> {
    return this.request("system.ping", undefined, opts);
  }

  /** system.shutdown: stop taking work, drain in-flight calls, exit 0. dispose() does this and waits for the exit. */
  shutdown(): Promise<null> {
    return this.request("system.shutdown", undefined);
  }

  /** system.shutdown_now: cancel everything and exit at once. */
  shutdownNow(): Promise<null> {
    return this.request("system.shutdown_now", undefined);
  }

  // ---- tools ----

  /** tool.list: every tool (view "inventory", the default) or what to offer the model (view "model"). */
  listTools(params?: ToolListParams, opts?: RequestOptions): Promise<ToolDescriptor[]> {
    return this.request("tool.list", params, opts);
  }

  /**
   * invoke runs one tool (tool.invoke). A tool that runs and fails resolves
   * with success false; only envelope problems reject.
   */
  invoke(name: string, args: Record<string, unknown>, opts: InvokeOptions = {}): ToolCall {
    const id = opts.id ?? `call_${randomUUID()}`;
    const params: ToolInvokeParams = { id, name, arguments: args };
    if (opts.consentGranted) params.consentGranted = true;
    const result = this.request("tool.invoke", params, opts);
    const call = new ToolCall(id, name, result);
    if (opts.onProgress) call.on("progress", opts.onProgress);
    this.calls.set(id, call);
    call.once("settled", () => {
      if (this.calls.get(id) === call) this.calls.delete(id);
    });
    return call;
  }

  /** host_tools.register: tools that live in the host; the sidecar runs them through onHostTool. */
  registerHostTools(tools: ToolDescriptor[], opts?: RequestOptions): Promise<HostToolsRegisterResult> {
    return this.request("host_tools.register", { tools }, opts);
  }

  // ---- read state ----

  /** read_state.seed: restore what a resumed chat had read (versions by path, or the transcript's messages). */
  seedReadState(params: ReadStateSeedParams, opts?: RequestOptions): Promise<ReadStateSeedResult> {
    return this.request("read_state.seed", params, opts);
  }

  /** read_state.get: the version of every file read this session, by path. */
  getReadState(opts?: RequestOptions): Promise<ReadStateGetResult> {
    return this.request("read_state.get", undefined, opts);
  }

  // ---- plugins ----

  listPlugins(opts?: RequestOptions): Promise<PluginListResult> {
    return this.request("plugin.list", undefined, opts);
  }

  enablePlugin(name: string, opts?: RequestOptions): Promise<PluginResult> {
    return this.request("plugin.enable", { name }, opts);
  }

  disablePlugin(name: string, opts?: RequestOptions): Promise<PluginResult> {
    return this.request("plugin.disable", { name }, opts);
  }

  unloadPlugin(name: string, opts?: RequestOptions): Promise<PluginResult> {
    return this.request("plugin.unload", { name }, opts);
  }

  reloadPlugin(name: string, opts?: RequestOptions): Promise<PluginResult> {
    return this.request("plugin.reload", { name }, opts);
  }

  // ---- shell sessions ----

  listSessions(opts?: RequestOptions): Promise<SessionListResult> {
    return this.request("session.list", undefined, opts);
  }

  closeSession(id: string, opts?: RequestOptions): Promise<SessionCloseResult> {
    return this.request("session.close", { sessionId: id }, opts);
  }

  // ---- the model's plan ----

  /** listTodos is the plan todo_write last stored for chatId (or for no chat); the "todos" event sends each new one. */
  listTodos(chatId?: string, opts?: RequestOptions): Promise<TodoListResult> {
    return this.request("todo.list", chatId === undefined ? {} : { chatId }, opts);
  }

  // ---- checkpoints and undo ----

  /** createCheckpoint marks a point in the workspace's change log (call it at each user turn). */
  createCheckpoint(label?: string, opts?: RequestOptions): Promise<CheckpointInfo> {
    return this.request("checkpoint.create", label === undefined ? {} : { label }, opts);
  }

  listCheckpoints(opts?: RequestOptions): Promise<CheckpointListResult> {
    return this.request("checkpoint.list", undefined, opts);
  }

  /** diffCheckpoint is the unified diff of the tools' changes from a checkpoint to another, or to now. */
  diffCheckpoint(from: string, to?: string, opts?: RequestOptions): Promise<CheckpointDiffResult> {
    return this.request("checkpoint.diff", to === undefined ? { from } : { from, to }, opts);
  }

  /** restoreCheckpoint puts back the files the tools changed since the checkpoint; files changed since by others are conflicts unless force. */
  restoreCheckpoint(id: string, options: { paths?: string[]; force?: boolean } = {}, opts?: RequestOptions): Promise<RestoreResult> {
    return this.request("checkpoint.restore", { id, ...options }, opts);
  }

  /** undoToolCall takes back one call's file changes (or a restore's, by its callId). */
  undoToolCall(callId: string, force?: boolean, opts?: RequestOptions): Promise<RestoreResult> {
    return this.request("tool.undo", force === undefined ? { callId } : { callId, force }, opts);
  }

  // ---- lifetime ----

  /**
   * dispose ends the sidecar: system.shutdown (in-flight calls drain), EOF on
   * its stdin, then SIGKILL if it has not exited within graceMs. It resolves
   * with how the process ended; calling it again returns the same promise.
   */
  dispose(opts: DisposeOptions = {}): Promise<ExitInfo> {
    if (!this.disposing) this.disposing = this.stop(opts.graceMs ?? 10_000);
    return this.disposing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  private async stop(graceMs: number): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    try {
      // The reply comes once the sidecar stopped taking work; EOF then lets
      // it exit even if the request was lost. A process that hangs is what
      // the timer is for.
      await this.shutdown().catch(() => {});
      this.child.stdin?.end();
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** kill sends a signal to the sidecar (SIGTERM behaves like system.shutdown_now). */
  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    return this.child.kill(signal);
  }
}
