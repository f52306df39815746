"""Sidecar: one running steerable-sidecar process and its JSON-RPC
connection, on asyncio. The host awaits typed methods; the sidecar's reverse
requests go to the host's handlers; progress goes to the call it belongs
to; a process that ends fails every pending call with the reason."""
import asyncio
import inspect
import os
import signal as signals
import uuid
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import framing as wire
from .binary import find_binary
from .errors import CANCELLED, INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError, SidecarError, SidecarExitError
from .logs import LogEntry, Logger, Tail, boot_error, default_logger, parse_log_line
from .protocol import (
    ApprovalRequestParams,
    ApprovalRequestResult,
    AskUserRequestParams,
    AskUserRequestResult,
    CheckpointDiffResult,
    CheckpointInfo,
    CheckpointListResult,
    Health,
    HostToolsRegisterResult,
    LifecycleReadyParams,
    PluginListResult,
    PluginResult,
    ReadStateGetResult,
    ReadStateSeedResult,
    RestoreResult,
    SessionCloseResult,
    SessionListResult,
    TodoListResult,
    TodoUpdatedParams,
    ToolCall,
    ToolDescriptor,
    ToolProgressParams,
    ToolResult,
    WebSearchRequestParams,
    WebSearchRequestResult,
)

AskUserHandler = Callable[[AskUserRequestParams], Union[AskUserRequestResult, Awaitable[AskUserRequestResult]]]
ApprovalHandler = Callable[[ApprovalRequestParams], Union[ApprovalRequestResult, Awaitable[ApprovalRequestResult]]]
HostToolHandler = Callable[[ToolCall], Union[ToolResult, Awaitable[ToolResult]]]
WebSearchHandler = Callable[[WebSearchRequestParams], Union[WebSearchRequestResult, Awaitable[WebSearchRequestResult]]]
ProgressCallback = Callable[[ToolProgressParams], None]

# The reverse requests (SPEC §2) and the handler that answers each.
_REVERSE = {
    "ask_user.request": "on_ask_user",
    "approval.request": "on_approval",
    "tool.invoke": "on_host_tool",
    "web_search.request": "on_web_search",
}

# How long after the exit the pipes may stay open (a grandchild holding
# them) before the exit is reported anyway.
_PIPE_CLOSE_GRACE = 2.0


@dataclass
class ExitInfo:
    """How the process ended: its exit code, negative -N when signal N killed it."""

    returncode: Optional[int]


class Sidecar:
    """A running steerable-sidecar. Create it with ``spawn_sidecar``; end it
    with ``close()`` (or an ``async with`` block).

    Reverse requests go to ``on_ask_user``, ``on_approval``, ``on_host_tool``
    and ``on_web_search`` (plain or async functions taking the params and
    returning the result; a missing one answers -32601, so the sidecar never
    waits; a cancelled tool call cancels the handler's task). ``on_progress``
    receives every tool.progress, ``on_todo_updated`` every todo.updated (the
    plan todo_write stored), ``on_notification(method, params)`` any other
    notification.
    """

    def __init__(self, proc: asyncio.subprocess.Process, binary: str, framing: str, logger: Optional[Logger]):
        self.binary = binary
        self.pid: int = proc.pid
        self.info: Optional[LifecycleReadyParams] = None
        self.on_ask_user: Optional[AskUserHandler] = None
        self.on_approval: Optional[ApprovalHandler] = None
        self.on_host_tool: Optional[HostToolHandler] = None
        self.on_web_search: Optional[WebSearchHandler] = None
        self.on_progress: Optional[ProgressCallback] = None
        self.on_notification: Optional[Callable[[str, Any], None]] = None
        self.on_todo_updated: Optional[Callable[[TodoUpdatedParams], None]] = None
        self.shutdown_reason: Optional[str] = None
        """lifecycle.shutdown's reason, once it came."""
        self._proc = proc
        self._framing = framing
        self._logger = logger
        self._next_id = 1
        self._pending: Dict[int, "asyncio.Future[Any]"] = {}
        self._methods: Dict[int, str] = {}
        self._progress: Dict[str, ProgressCallback] = {}
        self._reverse: Dict[Any, "asyncio.Task[None]"] = {}
        self._write_lock = asyncio.Lock()
        self._ready: "asyncio.Future[LifecycleReadyParams]" = asyncio.get_running_loop().create_future()
        self._exited = asyncio.Event()
        self._exit_info: Optional[ExitInfo] = None
        self._exit_error: Optional[SidecarExitError] = None
        self._closing: Optional["asyncio.Task[ExitInfo]"] = None
        self.tail = Tail()
        self.boot: List[str] = []
        self._tasks = [
            asyncio.ensure_future(self._read_stdout()),
            asyncio.ensure_future(self._read_stderr()),
        ]
        self._watch = asyncio.ensure_future(self._watch_exit())

    # ---- the connection ----

    async def _read_stdout(self) -> None:
        assert self._proc.stdout is not None
        while True:
            try:
                msg = await wire.read(self._framing, self._proc.stdout)
            except wire.NotJSON as e:
                if self._ready.done():
                    self._log_client("error", str(e))
                continue  # before ready: what it printed instead of starting, which stderr explains
            except (ConnectionError, asyncio.LimitOverrunError, ValueError) as e:
                self._log_client("error", f"reading the sidecar's stdout failed: {e}")
                return
            if msg is None:
                return
            self._dispatch(msg)

    def _dispatch(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            self._log_client("error", f"the sidecar sent a frame that is not an object: {str(msg)[:200]}")
            return
        method = msg.get("method")
        if method is not None and "id" in msg:
            self._reverse[msg["id"]] = asyncio.ensure_future(self._answer(msg["id"], method, msg.get("params")))
        elif method is not None:
            self._notified(method, msg.get("params"))
        else:
            rid = msg.get("id")
            fut = self._pending.pop(rid, None) if isinstance(rid, int) else None
            if fut is None or fut.done():
                self._log_client("warn", f"a reply matches no pending request: {str(msg)[:200]}")
            elif "error" in msg:
                err = msg["error"] if isinstance(msg["error"], dict) else {}
                fut.set_exception(RpcError(self._methods.get(rid, ""), err.get("code", 0), str(err.get("message", "")), err.get("data")))
            else:
                fut.set_result(msg.get("result"))

    def _notified(self, method: str, params: Any) -> None:
        if method == "tool.progress":
            cb = self._progress.get(params.get("callId")) if isinstance(params, dict) else None
            if cb is not None:
                cb(params)
            if self.on_progress is not None:
                self.on_progress(params)
        elif method == "lifecycle.ready":
            if not self._ready.done():
                self._ready.set_result(params)
        elif method == "$/cancelRequest":
            task = self._reverse.get(params.get("id")) if isinstance(params, dict) else None
            if task is not None:
                task.cancel()
        elif method == "lifecycle.shutdown":
            self.shutdown_reason = params.get("reason") if isinstance(params, dict) else None
        elif method == "todo.updated" and self.on_todo_updated is not None:
            self.on_todo_updated(params)
        elif self.on_notification is not None:
            self.on_notification(method, params)

    async def _answer(self, rid: Any, method: str, params: Any) -> None:
        name = _REVERSE.get(method)
        handler = getattr(self, name) if name else None
        try:
            if handler is None:
                what = f"no {name} handler was given to spawn_sidecar" if name else "it is not a reverse request this client knows"
                await self._reply_error(rid, METHOD_NOT_FOUND, f"this host does not answer {method} ({what})")
                return
            try:
                result = handler(params)
                if inspect.isawaitable(result):
                    result = await result
            except asyncio.CancelledError:
                raise  # the sidecar cancelled the request: it no longer waits for a reply
            except Exception as e:  # the host's failure is the sidecar's error reply
                await self._reply_error(rid, INTERNAL_ERROR, f"{name} failed: {e}")
                return
            await self._send({"jsonrpc": "2.0", "id": rid, "result": result})
        except (asyncio.CancelledError, SidecarError, ConnectionError):
            pass  # cancelled, or the process is gone: nobody to answer
        finally:
            self._reverse.pop(rid, None)

    async def _reply_error(self, rid: Any, code: int, message: str) -> None:
        await self._send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    async def _send(self, msg: Dict[str, Any]) -> None:
        if self._exit_error is not None:
            raise self._exit_error
        data = wire.encode(self._framing, msg)
        assert self._proc.stdin is not None
        async with self._write_lock:
            self._proc.stdin.write(data)
            await self._proc.stdin.drain()

    def _send_now(self, msg: Dict[str, Any]) -> None:
        """Queues a frame without waiting (from a cancelled task, which must not wait)."""
        if self._exit_error is None and self._proc.stdin is not None and not self._proc.stdin.is_closing():
            self._proc.stdin.write(wire.encode(self._framing, msg))

    async def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        while True:
            try:
                line = await self._proc.stderr.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                line = e.partial
            except (asyncio.LimitOverrunError, ValueError, ConnectionError):
                return
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            self.tail.push(text)
            entry = parse_log_line(text, self.pid)
            if not self._ready.done():
                if len(self.boot) < 200:
                    self.boot.append(text)
                if self._logger is default_logger and entry.level == "text":
                    continue  # the default logger leaves a boot error's text to the exception, which says it
            if self._logger is not None:
                self._logger(entry)

    def _log_client(self, level: str, message: str) -> None:
        if self._logger is not None:
            self._logger(LogEntry(level, f"client: {message}", message, self.pid))

    async def _watch_exit(self) -> None:
        code = await self._proc.wait()
        # Report once the pipes are read to their end (every reply it wrote is
        # delivered), or a little later when a grandchild still holds them.
        done, pending = await asyncio.wait(self._tasks, timeout=_PIPE_CLOSE_GRACE)
        for t in pending:
            t.cancel()
        self._ended(code)

    def _ended(self, code: Optional[int]) -> None:
        self._exit_info = ExitInfo(code)
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        tail = self.tail.get()
        last = ("; its last stderr lines:\n  " + "\n  ".join(tail[-8:])) if tail else ""
        msg = f"steerable-sidecar {how} after close()" if self._closing else f"steerable-sidecar (pid {self.pid}) {how}{last}"
        self._exit_error = SidecarExitError(msg, code, not self._ready.done(), tail)
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(self._exit_error)
        self._pending.clear()
        for task in list(self._reverse.values()):
            task.cancel()
        self._exited.set()

    # ---- requests ----

    async def request(self, method: str, params: Any = None) -> Any:
        """Sends one host → sidecar method and returns its result; raises
        RpcError for the sidecar's error reply, SidecarExitError when the
        process ends first. Cancelling the awaiting task sends
        $/cancelRequest. The typed methods below are built on it."""
        if self._exit_error is not None:
            raise self._exit_error
        rid = self._next_id
        self._next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self._methods[rid] = method
        frame: Dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            frame["params"] = params
        try:
            await self._send(frame)
            return await fut
        except asyncio.CancelledError:
            if self._pending.pop(rid, None) is not None:
                self._send_now({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}})
            raise
        finally:
            self._pending.pop(rid, None)
            self._methods.pop(rid, None)

    async def ping(self) -> Health:
        """system.ping: the sidecar's Health."""
        return await self.request("system.ping")

    async def shutdown(self) -> None:
        """system.shutdown: stop taking work, drain in-flight calls, exit 0. close() does this and waits for the exit."""
        await self.request("system.shutdown")

    async def shutdown_now(self) -> None:
        """system.shutdown_now: cancel everything and exit at once."""
        await self.request("system.shutdown_now")

    async def list_tools(self, view: Optional[str] = None, strategy: Optional[str] = None, ask_user: Optional[bool] = None) -> List[ToolDescriptor]:
        """tool.list: every tool (view "inventory", the default) or what to offer the model (view "model")."""
        params = {k: v for k, v in (("view", view), ("strategy", strategy), ("askUser", ask_user)) if v is not None}
        return await self.request("tool.list", params)

    async def invoke(self, name: str, arguments: Mapping[str, Any], *, id: Optional[str] = None,
                     consent_granted: bool = False, on_progress: Optional[ProgressCallback] = None) -> ToolResult:
        """tool.invoke: run one tool. A tool that runs and fails returns
        success False; only envelope problems raise. ``id`` is the ToolCall
        id (the model's tool-call id; default a fresh "call_<uuid>"), which
        the call's tool.progress notifications, passed to ``on_progress``,
        carry."""
        call_id = id or f"call_{uuid.uuid4()}"
        params: Dict[str, Any] = {"id": call_id, "name": name, "arguments": dict(arguments)}
        if consent_granted:
            params["consentGranted"] = True
        if on_progress is not None:
            self._progress[call_id] = on_progress
        try:
            return await self.request("tool.invoke", params)
        finally:
            if on_progress is not None and self._progress.get(call_id) is on_progress:
                del self._progress[call_id]

    async def register_host_tools(self, tools: Sequence[ToolDescriptor]) -> HostToolsRegisterResult:
        """host_tools.register: tools that live in the host; the sidecar runs them through on_host_tool."""
        return await self.request("host_tools.register", {"tools": list(tools)})

    async def seed_read_state(self, state: Optional[Mapping[str, str]] = None, messages: Optional[Sequence[Mapping[str, Any]]] = None) -> ReadStateSeedResult:
        """read_state.seed: restore what a resumed chat had read (versions by path, or the transcript's messages)."""
        params: Dict[str, Any] = {}
        if state is not None:
            params["state"] = dict(state)
        if messages is not None:
            params["messages"] = list(messages)
        return await self.request("read_state.seed", params)

    async def get_read_state(self) -> ReadStateGetResult:
        """read_state.get: the version of every file read this session, by path."""
        return await self.request("read_state.get")

    async def list_plugins(self) -> PluginListResult:
        return await self.request("plugin.list")

    async def enable_plugin(self, name: str) -> PluginResult:
        return await self.request("plugin.enable", {"name": name})

    async def disable_plugin(self, name: str) -> PluginResult:
        return await self.request("plugin.disable", {"name": name})

    async def unload_plugin(self, name: str) -> PluginResult:
        return await self.request("plugin.unload", {"name": name})

    async def reload_plugin(self, name: str) -> PluginResult:
        return await self.request("plugin.reload", {"name": name})

    async def list_sessions(self) -> SessionListResult:
        return await self.request("session.list")

    async def close_session(self, session_id: str) -> SessionCloseResult:
        return await self.request("session.close", {"sessionId": session_id})

    # ---- the model's plan ----

    async def list_todos(self, chat_id: Optional[str] = None) -> TodoListResult:
        """The plan todo_write last stored for chat_id (or for no chat);
        ``on_todo_updated`` receives each new one."""
        return await self.request("todo.list", {} if chat_id is None else {"chatId": chat_id})

    # ---- checkpoints and undo ----

    async def create_checkpoint(self, label: Optional[str] = None) -> CheckpointInfo:
        """Marks a point in the workspace's change log (call it at each user turn)."""
        return await self.request("checkpoint.create", {} if label is None else {"label": label})

    async def list_checkpoints(self) -> CheckpointListResult:
        return await self.request("checkpoint.list")

    async def diff_checkpoint(self, from_id: str, to_id: Optional[str] = None) -> CheckpointDiffResult:
        """The unified diff of the tools' changes from a checkpoint to another, or to now."""
        return await self.request("checkpoint.diff", {"from": from_id} if to_id is None else {"from": from_id, "to": to_id})

    async def restore_checkpoint(self, checkpoint_id: str, paths: Optional[List[str]] = None, force: bool = False) -> RestoreResult:
        """Puts back the files the tools changed since the checkpoint; files
        changed since by others are conflicts unless force."""
        params: Dict[str, Any] = {"id": checkpoint_id}
        if paths is not None:
            params["paths"] = paths
        if force:
            params["force"] = True
        return await self.request("checkpoint.restore", params)

    async def undo_tool_call(self, call_id: str, force: bool = False) -> RestoreResult:
        """Takes back one call's file changes (or a restore's, by its callId)."""
        return await self.request("tool.undo", {"callId": call_id, "force": True} if force else {"callId": call_id})

    # ---- lifetime ----

    @property
    def returncode(self) -> Optional[int]:
        return self._exit_info.returncode if self._exit_info else None

    async def wait(self) -> ExitInfo:
        """Waits until the process has exited (and its pipes are read)."""
        await self._exited.wait()
        assert self._exit_info is not None
        return self._exit_info

    async def close(self, grace: float = 10.0) -> ExitInfo:
        """Ends the sidecar: system.shutdown (in-flight calls drain), EOF on
        its stdin, then SIGKILL if it has not exited within ``grace``
        seconds (default 10, above the sidecar's own 5 s drain). Returns how
        it ended; calling it again waits for the same end."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._stop(grace))
        return await asyncio.shield(self._closing)

    async def _stop(self, grace: float) -> ExitInfo:
        if self._exit_info is not None:
            return self._exit_info
        try:
            await asyncio.wait_for(self._end_gracefully(), grace)
        except asyncio.TimeoutError:
            self.kill(signals.SIGKILL if os.name != "nt" else signals.SIGTERM)
        return await self.wait()

    async def _end_gracefully(self) -> None:
        try:
            await self.shutdown()
        except SidecarError:
            pass  # it is dying already; the exit says how
        if self._proc.stdin is not None and not self._proc.stdin.is_closing():
            self._proc.stdin.close()
        await self.wait()

    def kill(self, sig: int = signals.SIGTERM) -> None:
        """Sends a signal (SIGTERM behaves like system.shutdown_now)."""
        if self._exit_info is None:
            try:
                self._proc.send_signal(sig)
            except ProcessLookupError:
                pass

    async def __aenter__(self) -> "Sidecar":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


class _Spawn:
    """What spawn_sidecar returns: await it for a Sidecar, or use it as
    ``async with spawn_sidecar(...) as sidecar:`` to close it at the end."""

    def __init__(self, coro: Awaitable[Sidecar]):
        self._coro = coro
        self._sidecar: Optional[Sidecar] = None

    def __await__(self):
        return self._coro.__await__()

    async def __aenter__(self) -> Sidecar:
        self._sidecar = await self._coro
        return self._sidecar

    async def __aexit__(self, *exc: Any) -> None:
        assert self._sidecar is not None
        await self._sidecar.close()


_DEFAULT: Any = object()


def spawn_sidecar(cwd: Union[str, "os.PathLike[str]"], *, binary: Optional[str] = None,
                  env: Optional[Mapping[str, Optional[str]]] = None, args: Sequence[str] = (),
                  framing: str = wire.NEWLINE, ready_timeout: float = 60.0, logger: Optional[Logger] = _DEFAULT,
                  on_ask_user: Optional[AskUserHandler] = None, on_approval: Optional[ApprovalHandler] = None,
                  on_host_tool: Optional[HostToolHandler] = None, on_web_search: Optional[WebSearchHandler] = None) -> _Spawn:
    """Starts steerable-sidecar with ``cwd`` as its workspace and returns it
    once it has sent lifecycle.ready.

    binary: the binary; default $STEERABLE_SIDECAR_BIN, then PATH.
    env: variables added to this process's environment (None removes one): STEERABLE_* configuration.
    args: more flags (--no-web-tools, --strict-config, …).
    framing: "newline" (default) or "content-length".
    ready_timeout: seconds to wait for lifecycle.ready (plugins load before it).
    logger: receives every stderr line as a LogEntry; default errors to
        stderr; ``to_logging`` routes into the logging module; None drops them.

    Raises BinaryNotFoundError (no binary where it looked), SidecarExitError
    (the process ended first: its boot error is the message), SidecarError
    (timeout). Cancelling the awaiting task kills the process.
    """
    return _Spawn(_spawn(cwd, binary, env, args, framing, ready_timeout, default_logger if logger is _DEFAULT else logger,
                         dict(on_ask_user=on_ask_user, on_approval=on_approval, on_host_tool=on_host_tool, on_web_search=on_web_search)))


async def _spawn(cwd, binary, env, args, framing, ready_timeout, logger, handlers) -> Sidecar:
    if not cwd:
        raise TypeError("spawn_sidecar needs cwd: the workspace directory the tools work in")
    full_env = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            full_env.pop(k, None)
        else:
            full_env[k] = v
    found = find_binary(binary, full_env)
    argv = [found.path, "--cwd", os.fspath(cwd), "--quiet-ready", *wire.flag(framing), *args]
    kwargs: Dict[str, Any] = {}
    if os.name == "nt":
        import subprocess
        kwargs["creationflags"] = subprocess.CREATE_NO_WINDOW  # a GUI host must not flash a console
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=full_env, limit=wire.STREAM_LIMIT, **kwargs)
    except OSError as e:
        raise SidecarError(f"could not start {found.path} (found via {found.source}): {e}") from e
    sc = Sidecar(proc, found.path, framing, logger)
    for name, fn in handlers.items():
        setattr(sc, name, fn)
    exited = asyncio.ensure_future(sc.wait())
    try:
        done, _ = await asyncio.wait({sc._ready, exited}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED)
        if sc._ready.done():
            sc.info = sc._ready.result()
            return sc
        if exited.done():
            rc = exited.result().returncode
            how = f"was killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
            why = boot_error(sc.boot)
            raise SidecarExitError(f"steerable-sidecar ({found.path}) {how} before it was ready"
                                   + (f": {why}" if why else " and wrote nothing on stderr"), rc, True, sc.tail.get())
        sc.kill(signals.SIGKILL if os.name != "nt" else signals.SIGTERM)
        await sc.wait()
        raise SidecarError(f"steerable-sidecar sent no lifecycle.ready within {ready_timeout:g} s (ready_timeout); killed it", sc.tail.get())
    except asyncio.CancelledError:
        sc.kill(signals.SIGKILL if os.name != "nt" else signals.SIGTERM)
        await asyncio.shield(sc.wait())
        raise
    finally:
        if not exited.done():
            exited.cancel()
