#!/usr/bin/env python3
"""A minimal Python host for steerable-sidecar: spawn it, wait for
lifecycle.ready, list the tools, invoke one, answer reverse requests, shut
down. Standard library only.

    python3 examples/python-host/host.py [path/to/steerable-sidecar]
"""
import itertools
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from queue import Queue


class Sidecar:
    def __init__(self, binary, workspace):
        self.proc = subprocess.Popen(
            [binary, "--cwd", workspace, "--log-level", "warn"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )
        self.ids = itertools.count(1)
        self.pending = {}
        self.lock = threading.Lock()
        self.ready = Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, frame):
        with self.lock:
            self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\n")
            self.proc.stdin.flush()

    def _read(self):
        for line in self.proc.stdout:  # one JSON-RPC frame per line
            msg = json.loads(line)
            if "method" in msg and "id" in msg:
                self._answer_reverse(msg)
            elif "method" in msg:
                if msg["method"] == "lifecycle.ready":
                    self.ready.put(msg["params"])
            elif msg.get("id") in self.pending:
                self.pending.pop(msg["id"]).put(msg)

    def _answer_reverse(self, msg):
        # Reverse requests: approvals, ask_user questions, host tools, hosted search.
        if msg["method"] == "approval.request":
            self._send({"id": msg["id"], "result": {"decision": "allow"}})
        elif msg["method"] == "ask_user.request":
            # A real host renders the questions; this one picks the first option.
            answers = {}
            for q in msg["params"]["questions"]:
                opts = q.get("options") or []
                pick = (opts[0].get("value") or opts[0]["label"]) if opts else "typed by the python host"
                answers[q["id"]] = [pick] if q.get("multiSelect") else pick
            self._send({"id": msg["id"], "result": {"answers": answers}})
        else:
            self._send({"id": msg["id"], "error": {"code": -32601, "message": "not implemented by this host"}})

    def call(self, method, params=None):
        rid, box = next(self.ids), Queue()
        self.pending[rid] = box
        frame = {"id": rid, "method": method}
        if params is not None:
            frame["params"] = params
        self._send(frame)
        msg = box.get(timeout=30)
        if "error" in msg:
            raise RuntimeError(f"{msg['error']['code']}: {msg['error']['message']}")
        return msg["result"]


def check(cond, what):
    if not cond:
        sys.exit(f"python host: FAILED: {what}")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "bin/steerable-sidecar"
    with tempfile.TemporaryDirectory(prefix="sidecar-py-") as ws:
        Path(ws, "hello.txt").write_text("hello from python\n")
        sc = Sidecar(binary, ws)
        info = sc.ready.get(timeout=30)
        check(info["protocolVersion"] == "0.1.0", "protocol version")
        health = sc.call("system.ping")
        print(f"sidecar {health['version']} ready, {health['loadedTools']} tools, status {health['status']}")

        tools = sc.call("tool.list", {"view": "model", "askUser": True})
        names = {t["name"] for t in tools}
        print("model view:", ", ".join(sorted(names)) or "(none)")
        if "read_file" in names:
            res = sc.call("tool.invoke", {"name": "read_file", "arguments": {"path": "hello.txt"}})
            check(res["success"] and res["data"]["content"] == "hello from python\n", "read_file result")
            print(f"read_file: version {res['data']['version'][:12]}…")

        if "ask_user" in names:
            res = sc.call("tool.invoke", {"name": "ask_user", "arguments": {
                "intro": "One question.",
                "questions": [{"id": "db", "text": "Which database?", "type": "select", "options": ["Postgres", "SQLite"]}]}})
            check(res["success"] and res["data"]["answers"]["db"] == "Postgres", "ask_user answer")
            print("ask_user:", res["message"])

        res = sc.call("tool.invoke", {"name": "no_such_tool", "arguments": {}})
        check(not res["success"] and res["needsFollowup"], "unknown tool is a follow-up result")
        print("unknown tool:", res["error"])

        try:
            sc.call("tool.invoke", {"name": "x"})
            check(False, "missing arguments should be -32602")
        except RuntimeError as err:
            check(str(err).startswith("-32602"), "invalid params code")

        sc.call("system.shutdown")
        check(sc.proc.wait(timeout=30) == 0, "clean exit")
        print("python host: ok")


if __name__ == "__main__":
    main()
