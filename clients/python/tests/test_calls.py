"""Tool calls in flight: progress routed to its call, cancellation by task
cancel, a crash that fails every pending call, a thousand calls at once."""
import asyncio
import os
import signal

from steerable_sidecar import SidecarExitError

from .helpers import SidecarTest


class CallsTest(SidecarTest):
    async def test_progress_goes_to_its_call(self):
        sc = await self.start()
        everything = []
        sc.on_progress = everything.append
        mine = {"stdout": "", "stderr": ""}

        def on_progress(p):
            mine[p["stream"]] += p["chunk"]  # chunks may join lines

        script = "for i in 1 2 3; do echo out$i; sleep 0.05; done; echo err >&2"
        res, other = await asyncio.gather(sc.invoke("bash", {"command": script}, id="c-prog", on_progress=on_progress),
                                          sc.invoke("bash", {"command": "echo other"}, id="c-other"))
        self.assertEqual(mine, {"stdout": "out1\nout2\nout3\n", "stderr": "err\n"})
        self.assertEqual(res["data"]["stdout"], "out1\nout2\nout3\n")
        self.assertIn(("c-other", "other\n"), [(p["callId"], p["chunk"]) for p in everything])

    async def test_task_cancel_sends_cancel_request(self):
        sc = await self.start()
        started = asyncio.Event()
        call = asyncio.ensure_future(sc.invoke("bash", {"command": "echo started; exec sleep 600"}, on_progress=lambda p: started.set()))
        await started.wait()
        call.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await call
        # The sidecar ends the command: no call in flight blocks a shutdown.
        self.assertEqual((await sc.ping())["status"], "ok")
        self.assertEqual((await asyncio.wait_for(sc.close(), 30)).returncode, 0)

    async def test_wait_for_timeout_cancels_the_call(self):
        sc = await self.start()
        with self.assertRaises(asyncio.TimeoutError):
            await asyncio.wait_for(sc.invoke("bash", {"command": "exec sleep 600"}), 0.2)
        self.assertEqual((await asyncio.wait_for(sc.close(), 30)).returncode, 0)

    async def test_kill_9_fails_every_pending_call_and_every_later_one(self):
        sc = await self.start(on_ask_user=lambda _req: asyncio.get_running_loop().create_future())
        started = asyncio.Event()
        pending = [
            asyncio.ensure_future(sc.invoke("bash", {"command": "echo a; exec sleep 600"}, on_progress=lambda p: started.set())),
            asyncio.ensure_future(sc.invoke("bash", {"command": "exec sleep 600"})),
            asyncio.ensure_future(sc.invoke("ask_user", {"intro": "?", "questions": [{"id": "q", "text": "Never answered?", "type": "text"}]})),
        ]
        await started.wait()
        os.kill(sc.pid, signal.SIGKILL)
        for outcome in await asyncio.gather(*pending, return_exceptions=True):
            self.assertIsInstance(outcome, SidecarExitError)
            self.assertEqual(outcome.returncode, -signal.SIGKILL)
            self.assertFalse(outcome.before_ready)
            self.assertIn(f"steerable-sidecar (pid {sc.pid}) was killed by signal {int(signal.SIGKILL)}", str(outcome))
        with self.assertRaises(SidecarExitError):
            await sc.ping()
        self.assertEqual((await sc.close()).returncode, -signal.SIGKILL)

    async def test_a_thousand_concurrent_invokes(self):
        for i in range(10):
            self.write(f"f{i}.txt", f"file {i}\n")
        # All of them in flight at once: with the default cap (64, as many
        # queued) the sidecar answers -32003 busy when no slot frees within
        # a second, which a loaded machine can take.
        sc = await self.start(env={"STEERABLE_MAX_INFLIGHT": "1000"})
        results = await asyncio.gather(*(sc.invoke("read_file", {"path": f"f{i % 10}.txt"}, id=f"c{i}") for i in range(1000)))
        for i, res in enumerate(results):
            self.assertTrue(res["success"], res.get("error"))
            self.assertEqual(res["data"]["content"], f"file {i % 10}\n")
        self.assertEqual((await sc.ping())["status"], "ok")
