"""steerable-sidecar's run_code runner.

Embedded in the binary, compiled once per session by the interpreter that
runs it, and run as `python3 -I -S -B -c <bootstrap> run_code <callId>`
with the compiled code on stdin, under the session's OS sandbox. It reads the
program from the bridge (fd 4), runs it as the body of a function with
guarded builtins and imports, relays tools.call(...) over the bridge
(messages to the sidecar on fd 3, replies on fd 4), and reports the return
value or the exception in one "done" message. stdout and stderr are the
program's own (captured by the sidecar like bash output), so print() can
never corrupt the protocol.

The guard is defence in depth: Python cannot be confined from inside
(introspection such as ().__class__.__base__.__subclasses__() reaches every
module), so the OS sandbox around this process is the wall. The protocol
and the guard lists are in tool_contract.json ("runCode"); see
internal/runcode/doc.go.
"""

# Only modules the interpreter has loaded at start-up or builds in: each
# stdlib import here would cost every program milliseconds (ast, json and
# threading together about 10 ms; a bare start is about 7).
import _thread
import builtins
import io
import posix
import sys

try:
    from _json import encode_basestring_ascii as _c_string
    from _json import make_encoder as _c_encoder
    from _json import make_scanner as _c_scanner
except ImportError:  # not CPython: the pure-Python json module
    _c_encoder = None

VERSION = 1
FILENAME = "<run_code>"
ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast
ModuleType = type(sys)
TO_SIDECAR, FROM_SIDECAR = 3, 4
MIN_PYTHON = (3, 9)
MAX_ERROR_CHARS = 4000
MAX_TRACEBACK_CHARS = 16000

# Modules a program may import: pure computation over values. Everything
# else (os, sys, subprocess, socket, ctypes, importlib, io, pathlib, ...)
# is refused with "import 'X' is not allowed in run_code".
ALLOWED_MODULES = frozenset([
    "abc", "array", "base64", "binascii", "bisect", "calendar", "cmath", "collections",
    "collections.abc", "colorsys", "concurrent.futures", "contextlib", "copy", "csv",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fnmatch", "fractions",
    "functools", "graphlib", "hashlib", "heapq", "hmac", "html", "itertools", "json",
    "keyword", "math", "numbers", "operator", "pprint", "queue", "random", "re",
    "secrets", "shlex", "statistics", "string", "struct", "textwrap", "threading",
    "time", "typing", "unicodedata", "urllib.parse", "uuid", "zlib",
])

# Builtins the program does not get: file access, dynamic code, the
# interpreter's own controls. __import__ is replaced by the guarded import.
REMOVED_BUILTINS = (
    "open", "eval", "exec", "compile", "input", "breakpoint", "help", "exit", "quit",
    "copyright", "credits", "license", "__loader__", "__spec__",
)

# Module attributes that stay reachable through a module view although
# they are dunders.
VISIBLE_DUNDERS = frozenset(["__all__", "__version__"])


class ToolCallError(Exception):
    """A nested tool call failed (tools.call_or_raise); .result is its ToolResult."""

    def __init__(self, tool, result):
        self.tool = tool
        self.result = result
        reason = result.get("error") or result.get("message") or "no error given"
        super().__init__("%s failed: %s" % (tool, reason))


class CallLimitError(Exception):
    """The sidecar refused a nested call (the per-program call limit)."""


class BridgeError(Exception):
    """The bridge to the sidecar is gone; no more tool calls are possible."""


def _not_serialisable(obj):
    raise TypeError("Object of type %s is not JSON serializable" % type(obj).__name__)


def _encode(obj):
    """Compact, ASCII-only JSON (lone surrogates survive as escapes)."""
    if _c_encoder is None:
        import json
        return json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    encode = _c_encoder({}, _not_serialisable, _c_string, None, ":", ",", False, False, False)
    return "".join(encode(obj, 0))


class _DecodeContext:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
    memo = {}


def _decode(text):
    if _c_encoder is None:
        import json
        return json.loads(text)
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    if text[end:].strip():
        raise ValueError("trailing data after the JSON value")
    return value


_scan = _c_scanner(_DecodeContext()) if _c_encoder is not None else None


class _Bridge:
    """JSON lines to the sidecar on fd 3, replies from it on fd 4.

    Safe for the program's threads without a thread of its own: the first
    caller that finds nobody reading reads the replies, hands each to the
    thread waiting for it (replies come in any order), and when its own
    has come passes the reading on to a thread still waiting.
    """

    def __init__(self):
        self._in = io.open(FROM_SIDECAR, "rb", buffering=1 << 16)
        self._wlock = _thread.allocate_lock()
        self._mu = _thread.allocate_lock()  # guards what follows
        self._waiting = {}  # call id -> _Waiter
        self._reading = False
        self._broken = None
        self._next_id = 0

    def send_line(self, line):
        data = memoryview((line + "\n").encode("ascii"))
        with self._wlock:
            while data:
                data = data[posix.write(TO_SIDECAR, data):]

    def read(self):
        line = self._in.readline()
        if not line:
            raise BridgeError("the sidecar closed the bridge (fd 4)")
        return _decode(line.decode("utf-8"))

    def call(self, tool, arguments):
        args = _encode(arguments)  # TypeError, ValueError: before any id is taken
        with self._mu:
            if self._broken is not None:
                raise BridgeError(self._broken)
            self._next_id += 1
            call_id = self._next_id
            w = self._waiting[call_id] = _Waiter()
            reader = not self._reading
            self._reading = True
        try:
            self.send_line('{"v":%d,"type":"call","id":%d,"tool":%s,"arguments":%s}' % (VERSION, call_id, _encode(tool), args))
        except Exception as e:
            with self._mu:
                self._broken = "the bridge to the sidecar broke: %s" % e
                if reader:
                    self._hand_over(w)
                del self._waiting[call_id]
            raise BridgeError(self._broken) from None
        if not reader:
            w.lock.acquire()  # a reply, the reading handed over, or a broken bridge
            reader = w.reply is None and self._broken is None
        if reader:
            self._read_until(w)
        with self._mu:
            del self._waiting[call_id]
        if w.reply is None:
            raise BridgeError(self._broken or "the bridge to the sidecar broke")
        return w.reply

    def _read_until(self, w):
        try:
            while w.reply is None:
                msg = self.read()
                with self._mu:
                    other = self._waiting.get(msg.get("id")) if isinstance(msg, dict) else None
                    if other is not None and other.reply is None:
                        other.reply = msg
                        if other is not w:
                            other.wake()
        except Exception as e:
            with self._mu:
                self._broken = "the bridge to the sidecar broke: %s" % e
        finally:
            with self._mu:
                self._hand_over(w)

    def _hand_over(self, w):
        """Passes the reading to a thread still waiting, or wakes them all
        when the bridge is broken. Called with _mu held."""
        for other in self._waiting.values():
            if other is w or other.reply is not None:
                continue
            other.wake()
            if self._broken is None:
                return  # it reads now; _reading stays set
        self._reading = False


class _Waiter:
    __slots__ = ("lock", "reply", "woken")

    def __init__(self):
        self.lock = _thread.allocate_lock()
        self.lock.acquire()
        self.reply = None
        self.woken = False

    def wake(self):
        if not self.woken:
            self.woken = True
            self.lock.release()


_bridge = None


def _arguments(name, args, kwargs):
    if len(args) > 1:
        raise TypeError("tools.%s takes keyword arguments or one dict, not %d positional arguments" % (name, len(args)))
    arguments = {}
    if args:
        if not isinstance(args[0], dict):
            raise TypeError("tools.%s takes keyword arguments or one dict, not %s" % (name, type(args[0]).__name__))
        arguments.update(args[0])
    arguments.update(kwargs)
    return arguments


class Tools:
    """tools.call(name, **arguments) and tools.<name>(**arguments) return the
    nested ToolResult as a dict; tools.call_or_raise raises ToolCallError
    when it failed."""

    __slots__ = ()

    def call(self, name, *args, **kwargs):
        if not isinstance(name, str) or not name:
            raise TypeError("tools.call needs the tool's name as a non-empty string")
        arguments = _arguments(name, args, kwargs)
        try:
            reply = _bridge.call(name, arguments)
        except (TypeError, ValueError) as e:  # from encoding the arguments
            raise TypeError("the arguments of tools.%s are not JSON-serialisable: %s" % (name, e)) from None
        if not reply.get("ok"):
            raise CallLimitError(reply.get("error") or "the sidecar refused the call")
        return reply.get("result")

    def call_or_raise(self, name, *args, **kwargs):
        result = self.call(name, *args, **kwargs)
        if not isinstance(result, dict) or not result.get("success"):
            raise ToolCallError(name, result if isinstance(result, dict) else {})
        return result

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def tool(*args, **kwargs):
            return self.call(name, *args, **kwargs)

        tool.__name__ = tool.__qualname__ = name
        return tool

    def __repr__(self):
        return "<tools: tools.call(name, **arguments), tools.<name>(**arguments), tools.call_or_raise(...)>"


# The guard: imports.

_real_import = builtins.__import__
_views = {}


def _view(real):
    """A module as the program sees it: its attributes, except modules that
    are not allowed (random._os, typing.sys, fnmatch.os) and dunders."""
    view = _views.get(real.__name__)
    if view is not None:
        return view

    def hidden(attr, value):
        if attr.startswith("__") and attr.endswith("__") and attr not in VISIBLE_DUNDERS:
            return "module %r has no attribute %r" % (real.__name__, attr)
        if isinstance(value, ModuleType) and value.__name__ not in ALLOWED_MODULES:
            return "module %r has no attribute %r (module %r is not allowed in run_code)" % (real.__name__, attr, value.__name__)
        return None

    def __getattr__(self, attr):
        value = getattr(real, attr)
        reason = hidden(attr, value)
        if reason is not None:
            raise AttributeError(reason)
        if isinstance(value, ModuleType):
            value = _view(value)
        self.__dict__[attr] = value
        return value

    def __dir__(self):
        return sorted(a for a, v in vars(real).items() if hidden(a, v) is None)

    cls = type("module", (ModuleType,), {"__getattr__": __getattr__, "__dir__": __dir__})
    view = cls(real.__name__, real.__doc__)
    _views[real.__name__] = view
    return view


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level:
        raise ImportError("relative imports are not allowed in run_code")
    if name not in ALLOWED_MODULES:
        raise ImportError("import '%s' is not allowed in run_code" % name)
    _real_import(name)
    if not fromlist:
        return _view(sys.modules[name.partition(".")[0]])
    for item in fromlist:
        sub = name + "." + item
        if item != "*" and sub in ALLOWED_MODULES:
            _real_import(sub)
    return _view(sys.modules[name])


def _program_builtins():
    safe = dict(builtins.__dict__)
    for name in REMOVED_BUILTINS:
        safe.pop(name, None)
    safe["__import__"] = _guarded_import
    return safe


# Compiling and running the program.

def _compile(code):
    """The program as the body of a function; line numbers stay the code's own."""
    tree = compile(code, FILENAME, "exec", ONLY_AST, True)
    wrapper = compile("def __run_code__():\n    pass\n", FILENAME, "exec", ONLY_AST, True)
    if tree.body:
        wrapper.body[0].body = tree.body
    namespace = {
        "__builtins__": _program_builtins(), "__name__": "__run_code__",
        "tools": Tools(), "ToolCallError": ToolCallError, "CallLimitError": CallLimitError,
    }
    exec(compile(wrapper, FILENAME, "exec", dont_inherit=True), namespace)
    return namespace["__run_code__"]


def _clip(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit] + "...[%d characters truncated]" % (len(text) - limit)


def _describe(exc):
    text = str(exc)
    name = type(exc).__name__
    return _clip("%s: %s" % (name, text) if text else name, MAX_ERROR_CHARS)


def _source_line(lines, lineno):
    if lineno and 0 < lineno <= len(lines):
        return lines[lineno - 1].strip()
    return ""


def _program_traceback(exc, lines):
    """The traceback trimmed to the program's own frames; returns (text, line)."""
    out, last = ["Traceback (most recent call last):"], None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == FILENAME:
            last = tb.tb_lineno
            name = frame.f_code.co_name
            out.append("  line %d, in %s" % (last, "<program>" if name == "__run_code__" else name))
            src = _source_line(lines, last)
            if src:
                out.append("    " + src)
        tb = tb.tb_next
    out.append(_describe(exc))
    return _clip("\n".join(out), MAX_TRACEBACK_CHARS), last


def _syntax_error(exc, lines):
    lineno = exc.lineno or 0
    out = ["  line %d" % lineno]
    src = exc.text if exc.text is not None else (lines[lineno - 1] if 0 < lineno <= len(lines) else "")
    src = src.rstrip("\n")
    if src:
        stripped = src.lstrip()
        out.append("    " + stripped)
        if exc.offset:
            out.append("    " + " " * max(exc.offset - 1 - (len(src) - len(stripped)), 0) + "^")
    name = type(exc).__name__
    out.append("%s: %s" % (name, exc.msg))
    return _clip("%s: %s (line %d)" % (name, exc.msg, lineno), MAX_ERROR_CHARS), "\n".join(out), lineno


def _encode_value(value, limit):
    """The return value as JSON, or (type, message) of why it cannot be."""
    try:
        text = _encode(value)
    except TypeError as e:
        return None, ("TypeError", "the return value is not JSON-serialisable: %s; return dicts, lists, "
                      "strings, numbers, booleans or None" % e)
    except RecursionError:
        return None, ("ValueError", "the return value is nested too deeply to encode as JSON")
    except ValueError as e:
        msg = str(e)
        if "Circular reference" in msg:
            msg = "the return value contains a circular reference (a container that contains itself); return a copy without the cycle"
        elif "Out of range float" in msg:
            msg = "the return value contains NaN or infinity, which JSON cannot carry"
        else:
            msg = "the return value cannot be encoded as JSON: %s" % msg
        return None, ("ValueError", msg)
    if len(text) > limit:
        return None, ("ValueError", "the return value is %d bytes of JSON, over the limit of %d "
                      "(STEERABLE_RUN_CODE_MAX_RESULT_BYTES); return less: a summary, a count or a slice"
                      % (len(text), limit))
    return text, None


def _flush_output():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _finish(line):
    """Sends the done message and ends the process at once (threads the
    program left running do not hold it up)."""
    _flush_output()
    try:
        _bridge.send_line(line)
    except Exception as e:
        sys.stderr.write("run_code: cannot report the result: the bridge (fd 3) is closed: %s\n" % e)
        sys.stderr.flush()
        posix._exit(2)
    posix._exit(0)


def _fail(error, traceback_text="", line=None, kind="exception"):
    msg = {"v": VERSION, "type": "done", "ok": False, "kind": kind, "error": error, "traceback": traceback_text}
    if line:
        msg["line"] = line
    _finish(_encode(msg))


def main():
    global _bridge
    if sys.version_info < MIN_PYTHON:
        sys.stderr.write("run_code needs Python %d.%d or newer, this is %s\n" % (MIN_PYTHON + (sys.version.split()[0],)))
        posix._exit(3)
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True, errors="backslashreplace")
    _bridge = _Bridge()
    start = _bridge.read()
    if not isinstance(start, dict) or start.get("v") != VERSION or start.get("type") != "start":
        sys.stderr.write("run_code: the first bridge message is not a version %d start message\n" % VERSION)
        posix._exit(2)
    code, limit = start["code"], start["maxResultBytes"]
    lines = code.splitlines()
    try:
        program = _compile(code)
    except SyntaxError as e:
        error, text, lineno = _syntax_error(e, lines)
        _fail(error, text, lineno, "syntax")
    except (ValueError, RecursionError, MemoryError) as e:  # NUL bytes, nesting the parser cannot take
        _fail(_describe(e), kind="syntax")
    try:
        value = program()
    except BaseException as e:  # SystemExit and KeyboardInterrupt are the program's too
        text, lineno = _program_traceback(e, lines)
        _fail(_describe(e), text, lineno)
    text, problem = _encode_value(value, limit)
    if problem is not None:
        _fail("%s: %s" % problem, kind="result")
    _finish('{"v":%d,"type":"done","ok":true,"value":%s}' % (VERSION, text))


main()
