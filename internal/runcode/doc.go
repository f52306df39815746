// Package runcode runs model-written Python that calls the other tools
// (run_code, SPEC §4.6). A model that needs twenty
// file reads, a loop and a filter writes one short program instead of
// twenty round trips through the model; every tool the program calls still
// goes through the sidecar's one dispatch pipeline (schema check, approval,
// sandbox, host tools), which the caller passes in as a Dispatch.
//
// # The child
//
// Each program runs in a python3 child of its own, started as
//
//	python3 -I -S -B -c 'import marshal,sys;exec(marshal.loads(sys.stdin.buffer.read()))' run_code <callId>
//
// with the runner (runner.py, embedded; compiled once per session by the
// same interpreter, which saves about 4 ms a start) on stdin: isolated mode, so
// no PYTHON* variable, user site or script directory shapes it (a json.py
// in the workspace is never imported); no site-packages; no bytecode. It
// runs under the session's layer-2 backend (package sandbox) with the
// network off, no UNIX sockets, and one writable directory: the program's
// own temp dir (TMPDIR), removed when the call ends. Programs of a session
// share the parent of those dirs, because Landlock would otherwise build a
// ruleset per call (about 19 ms here). The workspace is read-only to the
// program itself: it writes through tools.write_file and friends, so the
// read-before-write gates hold. The environment is sandbox.EnvAllowlist
// (PATH, HOME, TMPDIR, TEMP, TMP, LANG, LC_*, SYSTEMROOT, SYSTEMDRIVE,
// PYTHONDONTWRITEBYTECODE=1). A backend that does not confine (none) is
// refused: run_code never runs unconfined. With STEERABLE_SIDECAR_CONFINED
// the host's layer-1 sandbox is inherited instead (sandbox.Inherited).
//
// The interpreter is found once per session in the background (Start):
// each python3 of the sidecar's PATH, in order, is run inside the sandbox
// (PATH may name the workspace) to learn its real executable — a pyenv
// shim costs hundreds of milliseconds per start, its target a few — and
// its version (≥ 3.9), and the runner's self-test must pass through the
// bridge. The first that passes is used for every program.
//
// # The bridge
//
// Dedicated pipes, so print() can never corrupt the protocol: the child
// writes to fd 3 and reads fd 4; stdout and stderr are captured like bash
// output (head and tail kept, streamed live). Messages are compact JSON
// lines, each with "v":1:
//
//	sidecar → child  {"v":1,"type":"start","code":"...","maxResultBytes":N}
//	child → sidecar  {"v":1,"type":"call","id":1,"tool":"read_file","arguments":{...}}
//	sidecar → child  {"v":1,"type":"reply","id":1,"ok":true,"result":{ToolResult}}
//	                 {"v":1,"type":"reply","id":1,"ok":false,"error":"..."} (refused: the call limit)
//	child → sidecar  {"v":1,"type":"done","ok":true,"value":...}
//	                 {"v":1,"type":"done","ok":false,"kind":"exception","error":"T: msg","traceback":"...","line":3}
//
// Call ids are unique per program; replies come in any order (a program's
// threads may call concurrently, at most MaxInflightCalls at once). The
// child is model-directed code, so every frame is checked strictly
// (Decode): a frame that is not JSON, of an unknown type or version, with
// foreign fields, over the frame limit, or a reused id ends the run
// (ErrBridge) — a broken stream cannot be trusted for what follows.
// tool_contract.json ("runCode") holds the shapes and the limits, with a
// test that this package and the runner satisfy them.
//
// # Threat model
//
// The guard in the runner — an import allowlist of pure stdlib modules,
// module views that hide the modules they import (random._os, typing.sys),
// no open, eval, exec, compile or input — is defence in depth only: Python
// cannot be confined from inside (().__class__.__base__.__subclasses__()
// reaches os), and the tests run such a program. The wall is the OS
// sandbox and the environment allowlist: a program that defeats the guard
// still cannot write outside its temp dir, reach the network, read the
// credential stores, see the sidecar's keys, or outlive its call (the
// sandbox's PID namespace: timeout, cancel, shutdown and EOF kill the
// whole tree).
//
// # Limits
//
// Limits: nested calls per program (the first over the limit is refused,
// a second ends the program), a timeout over the whole run including
// nested calls, the size of the return value, the output kept, the frame
// size; the code is at most MaxCodeChars characters. The sandbox's
// per-call limits on processes and memory apply to the child.
package runcode
