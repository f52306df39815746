"""Shared by the tests: the binary under test (STEERABLE_SIDECAR_BIN, else
the repository's bin/steerable-sidecar from `make build`), scratch
workspaces, a base class that starts sidecars and closes them."""
import asyncio
import json
import os
import tempfile
import unittest
from pathlib import Path

from steerable_sidecar import spawn_sidecar

REPO = Path(__file__).resolve().parents[3]
TESTDATA = REPO / "clients" / "testdata"
BINARY = os.environ.get("STEERABLE_SIDECAR_BIN") or str(REPO / "bin" / "steerable-sidecar")
if not os.path.exists(BINARY):
    raise RuntimeError(f"the tests drive the real binary: {BINARY} is missing; run `make build` in {REPO} or set STEERABLE_SIDECAR_BIN")


class SidecarTest(unittest.IsolatedAsyncioTestCase):
    """Each test gets a scratch workspace; every sidecar started with
    self.start is closed when the test ends."""

    async def asyncSetUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="sidecar-py-")
        self.ws = os.path.realpath(self._tmp.name)
        self.addCleanup(self._tmp.cleanup)
        self.sidecars = []
        # The test loop runs in debug mode, where creating a thousand tasks
        # at once is slow enough to be reported; that is not the client.
        asyncio.get_running_loop().slow_callback_duration = 10

    async def asyncTearDown(self):
        for sc in self.sidecars:
            await sc.close()

    def write(self, name, text):
        Path(self.ws, name).write_text(text)
        return os.path.join(self.ws, name)

    async def start(self, **kwargs):
        self.logs = []
        kwargs.setdefault("binary", BINARY)
        kwargs.setdefault("logger", self.logs.append)
        sc = await spawn_sidecar(kwargs.pop("cwd", self.ws), **kwargs)
        self.sidecars.append(sc)
        return sc

    def plugin_config(self):
        """A plugins.json, outside the workspace, running the echo MCP server
        unsandboxed: under bwrap a plugin's /tmp is private, so a checkout
        below /tmp (CI's) would hide the server from a sandboxed plugin, and
        the sidecar grants "none" only to a plugin whose manifest and cwd the
        model cannot write. The plugin sandbox has its own tests."""
        tmp = tempfile.TemporaryDirectory(prefix="sidecar-py-plugins-")
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "plugins.json")
        Path(path).write_text(json.dumps({"plugins": {"echo": {
            "command": "python3", "args": [str(TESTDATA / "echo_mcp_server.py")],
            "cwd": str(TESTDATA), "sandbox": "none"}}}))
        return path


async def until(cond, what):
    """Polls cond (every 10 ms) until it is true."""
    for _ in range(3000):
        if cond():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"waited 30 s for {what}")


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
