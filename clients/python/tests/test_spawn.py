"""spawn_sidecar: finding the binary, waiting for ready, the boot errors a
host sees, stderr, both framings, close."""
import asyncio
import os
import signal
from pathlib import Path

from steerable_sidecar import BinaryNotFoundError, RpcError, SidecarError, SidecarExitError, spawn_sidecar

from .helpers import BINARY, TESTDATA, SidecarTest, alive, until


class SpawnTest(SidecarTest):
    async def test_ready_info_pid_and_parsed_stderr(self):
        sc = await self.start()
        self.assertEqual(sc.info["protocolVersion"], "0.1.0")
        self.assertEqual(sc.info["pid"], sc.pid)
        self.assertEqual(sc.binary, BINARY)
        self.assertEqual((await sc.ping())["pid"], sc.pid)
        await until(lambda: any(e.message == "sidecar ready" for e in self.logs), "the ready log line")
        line = next(e for e in self.logs if e.message == "sidecar ready")
        self.assertEqual(line.level, "info")
        self.assertIsInstance(line.fields["tools"], int)
        self.assertFalse(any(e.raw.startswith("__SIDECAR_READY__") for e in self.logs), "--quiet-ready")

    async def test_missing_workspace_is_the_sidecars_own_boot_error(self):
        with self.assertRaises(SidecarExitError) as cm:
            await spawn_sidecar("/nonexistent/workspace", binary=BINARY, logger=None)
        err = cm.exception
        self.assertTrue(err.before_ready)
        self.assertEqual(err.returncode, 2)
        self.assertRegex(str(err), r'exited with code 2 before it was ready: steerable-sidecar: workspace "/nonexistent/workspace".*pass an existing directory with --cwd')

    async def test_bad_flag_is_one_line_not_the_usage(self):
        with self.assertRaises(SidecarExitError) as cm:
            await spawn_sidecar(self.ws, binary=BINARY, args=["--bogus"], logger=None)
        self.assertRegex(str(cm.exception), r"before it was ready: flag provided but not defined: -bogus$")

    async def test_strict_config_names_the_variable(self):
        with self.assertRaises(SidecarExitError) as cm:
            await spawn_sidecar(self.ws, binary=BINARY, args=["--strict-config"], env={"STEERABLE_MAX_INFLIGHT": "0"}, logger=None)
        self.assertIn('STEERABLE_MAX_INFLIGHT="0" is invalid: allowed an integer in 1..4096', str(cm.exception))

    async def test_wrong_binary_path_names_it_and_the_fix(self):
        with self.assertRaises(BinaryNotFoundError) as cm:
            await spawn_sidecar(self.ws, binary="/nonexistent/steerable-sidecar")
        self.assertRegex(str(cm.exception), r"^steerable-sidecar binary '/nonexistent/steerable-sidecar' \(from the binary argument\) does not exist; build it with `make build`")
        not_exec = self.write("steerable-sidecar", "")
        with self.assertRaisesRegex(BinaryNotFoundError, r"is not executable \(chmod \+x it\)"):
            await spawn_sidecar(self.ws, binary=not_exec)

    async def test_binary_from_env_then_path_else_where_it_looked(self):
        via_env = await self.start(binary=None, env={"STEERABLE_SIDECAR_BIN": BINARY})
        self.assertEqual(via_env.binary, BINARY)
        with self.assertRaisesRegex(BinaryNotFoundError, r"'/nope/steerable-sidecar' \(from STEERABLE_SIDECAR_BIN\) does not exist"):
            await spawn_sidecar(self.ws, env={"STEERABLE_SIDECAR_BIN": "/nope/steerable-sidecar"})
        via_path = await self.start(binary=None, env={"STEERABLE_SIDECAR_BIN": None, "PATH": os.path.dirname(BINARY) + os.pathsep + os.environ["PATH"]})
        self.assertEqual(via_path.binary, BINARY)
        with self.assertRaises(BinaryNotFoundError) as cm:
            await spawn_sidecar(self.ws, env={"STEERABLE_SIDECAR_BIN": None, "PATH": "/nonexistent"})
        self.assertEqual(cm.exception.tried, [
            "the binary argument: not given",
            "STEERABLE_SIDECAR_BIN: not set",
            "PATH: no steerable-sidecar in any of its directories",
        ])

    async def test_ready_timeout_kills_the_process(self):
        pid_file = os.path.join(self.ws, "pid")
        with self.assertRaises(SidecarError) as cm:
            await spawn_sidecar(self.ws, binary=str(TESTDATA / "silent-sidecar.sh"), ready_timeout=1,
                                env={"SILENT_SIDECAR_PID_FILE": pid_file}, logger=None)
        self.assertIn("no lifecycle.ready within 1 s (ready_timeout); killed it", str(cm.exception))
        # A loaded machine may not even have run the script when the timeout
        # fires; when it did, its process is gone.
        if os.path.exists(pid_file):
            self.assertFalse(alive(int(Path(pid_file).read_text())))

    async def test_cancelling_the_spawn_kills_the_process(self):
        pids = []
        task = asyncio.ensure_future(spawn_sidecar(self.ws, binary=str(TESTDATA / "silent-sidecar.sh"), logger=lambda e: pids.append(e.pid)))
        await until(lambda: pids, "the fixture's first stderr line")
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await task
        self.assertFalse(alive(pids[0]))

    async def test_content_length_framing(self):
        self.write("a.txt", "over headers\n")
        sc = await self.start(framing="content-length")
        self.assertEqual((await sc.ping())["status"], "ok")
        self.assertEqual((await sc.invoke("read_file", {"path": "a.txt"}))["data"]["content"], "over headers\n")
        chunks = []
        await sc.invoke("bash", {"command": "echo live"}, on_progress=lambda p: chunks.append(p["chunk"]))
        self.assertEqual(chunks, ["live\n"])

    async def test_close_shuts_down_and_later_calls_raise_the_exit(self):
        sc = await self.start()
        first = asyncio.ensure_future(sc.close())
        second = asyncio.ensure_future(sc.close())
        self.assertEqual((await first).returncode, 0)
        self.assertEqual((await second).returncode, 0)
        self.assertEqual(sc.shutdown_reason, "normal")
        with self.assertRaisesRegex(SidecarExitError, r"exited with code 0 after close\(\)"):
            await sc.ping()

    async def test_close_kills_after_the_grace(self):
        sc = await self.start(env={"STEERABLE_SHUTDOWN_GRACE_MS": "600000"})
        started = asyncio.Event()
        call = asyncio.ensure_future(sc.invoke("bash", {"command": "echo started; exec sleep 600"}, on_progress=lambda p: started.set()))
        await started.wait()
        self.assertEqual((await sc.close(grace=0.3)).returncode, -signal.SIGKILL)
        with self.assertRaises(SidecarExitError) as cm:
            await call
        self.assertEqual(cm.exception.returncode, -signal.SIGKILL)

    async def test_async_with(self):
        async with spawn_sidecar(self.ws, binary=BINARY, logger=None) as sc:
            self.assertEqual((await sc.ping())["status"], "ok")
        self.assertEqual(sc.returncode, 0)

    async def test_unknown_method_is_an_rpc_error(self):
        sc = await self.start()
        with self.assertRaises(RpcError) as cm:
            await sc.request("no.such_method", {})
        self.assertEqual((cm.exception.code, cm.exception.kind, cm.exception.method), (-32601, "method_not_found", "no.such_method"))
        self.assertEqual(cm.exception.data["method"], "no.such_method")
