"""Every host → sidecar method the binary serves, through its typed wrapper."""
import asyncio
import hashlib
from pathlib import Path

from steerable_sidecar import RpcError, SidecarExitError

from .helpers import SidecarTest


class MethodsTest(SidecarTest):
    async def test_ping_and_both_views_of_tool_list(self):
        sc = await self.start()
        health = await sc.ping()
        self.assertEqual((health["status"], health["protocolVersion"]), ("ok", "0.1.0"))
        inventory = await sc.list_tools()
        self.assertEqual(len(inventory), health["loadedTools"])
        with_ask = await sc.list_tools(view="model", strategy="full", ask_user=True)
        without = await sc.list_tools(view="model", strategy="full")
        self.assertIn("ask_user", [d["name"] for d in with_ask])
        self.assertNotIn("ask_user", [d["name"] for d in without])
        with self.assertRaises(RpcError) as cm:
            await sc.list_tools(view="everything")
        self.assertEqual((cm.exception.code, cm.exception.kind), (-32602, "invalid_params"))

    async def test_invoke_result_failed_result_envelope_error(self):
        self.write("hello.txt", "hello\n")
        sc = await self.start()
        ok = await sc.invoke("read_file", {"path": "hello.txt"}, id="c1")
        self.assertEqual(ok["data"]["content"], "hello\n")
        missing = await sc.invoke("raed_file", {})
        self.assertEqual((missing["success"], missing["needsFollowup"], missing["error"]), (False, True, "unknown tool: raed_file"))
        with self.assertRaisesRegex(RpcError, "missing property 'arguments'"):
            await sc.request("tool.invoke", {"name": "read_file"})

    async def test_read_state_seed_and_get(self):
        path = self.write("a.txt", "a\n")
        sc = await self.start()
        version = hashlib.sha256(b"a\n").hexdigest()
        self.assertEqual(await sc.get_read_state(), {"state": {}})
        self.assertEqual(await sc.seed_read_state(state={path: version}), {"seeded": 1, "skipped": 0})
        self.assertEqual(await sc.get_read_state(), {"state": {path: version}})
        self.assertTrue((await sc.invoke("write_file", {"path": "a.txt", "content": "b\n"}))["success"])

    async def test_register_host_tools_then_the_sidecar_calls_back(self):
        calls = []

        def create_event(call):
            calls.append(call)
            return {"success": True, "message": f"created {call['arguments']['title']}"}

        sc = await self.start(on_host_tool=create_event)
        reg = await sc.register_host_tools([{"name": "create_event", "description": "Create a calendar event.",
                                              "parameters": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}])
        self.assertEqual(reg, {"registered": 1})
        self.assertEqual(next(d for d in await sc.list_tools() if d["name"] == "create_event")["source"], "host")
        res = await sc.invoke("create_event", {"title": "standup"}, id="call_1")
        self.assertEqual(res["message"], "created standup")
        self.assertEqual(calls, [{"id": "call_1", "name": "create_event", "arguments": {"title": "standup"}}])

    async def test_plugin_lifecycle(self):
        sc = await self.start(env={"STEERABLE_PLUGINS_CONFIG": self.plugin_config()})
        plugins = (await sc.list_plugins())["plugins"]
        self.assertEqual([(p["name"], p["state"], p["tools"]) for p in plugins], [("echo", "enabled", ["echo"])])
        self.assertEqual((await sc.invoke("echo", {"text": "hi"}))["message"], "hi")
        self.assertEqual((await sc.disable_plugin("echo"))["plugin"]["state"], "disabled")
        self.assertEqual((await sc.invoke("echo", {"text": "hi"}))["error"], "unknown tool: echo")
        with self.assertRaises(RpcError) as cm:
            await sc.disable_plugin("echo")
        self.assertEqual((cm.exception.code, cm.exception.kind), (-32010, "plugin_state"))
        self.assertEqual((await sc.enable_plugin("echo"))["plugin"]["state"], "enabled")
        self.assertEqual((await sc.reload_plugin("echo"))["plugin"]["state"], "enabled")
        self.assertEqual((await sc.invoke("echo", {"text": "reloaded"}))["message"], "reloaded")
        self.assertEqual((await sc.unload_plugin("echo"))["plugin"]["state"], "unloaded")
        self.assertEqual(await sc.list_plugins(), {"plugins": []})

    async def test_session_list_and_close(self):
        sc = await self.start()
        self.assertEqual(await sc.list_sessions(), {"sessions": []})
        opened = await sc.invoke("bash_session", {"command": "echo hi", "yieldMs": 200})
        sid = opened["data"]["sessionId"]
        self.assertEqual([(s["id"], s["exited"]) for s in (await sc.list_sessions())["sessions"]], [(sid, False)])
        closed = await sc.close_session(sid)
        self.assertEqual((closed["session"]["id"], closed["session"]["exited"]), (sid, True))
        with self.assertRaises(RpcError):
            await sc.close_session("sh-00000000")

    async def test_todo_list_and_updates(self):
        sc = await self.start()
        self.assertEqual(await sc.list_todos(), {"todos": []})
        seen = []
        sc.on_todo_updated = seen.append
        todos = [{"id": "1", "content": "write the test", "status": "in_progress"}]
        res = await sc.invoke("todo_write", {"todos": todos, "chatId": "c1"})
        self.assertTrue(res["success"], res.get("error"))
        self.assertEqual(await sc.list_todos("c1"), {"todos": todos})
        self.assertEqual(seen, [{"chatId": "c1", "todos": todos}])  # sent before the call's reply
        self.assertEqual(await sc.list_todos(), {"todos": []})

    async def test_checkpoints(self):
        self.write("a.txt", "before\n")
        sc = await self.start()
        cp = await sc.create_checkpoint("turn 1")
        self.assertEqual(cp["label"], "turn 1")
        self.assertTrue((await sc.invoke("read_file", {"path": "a.txt"}))["success"])
        self.assertTrue((await sc.invoke("write_file", {"path": "a.txt", "content": "after\n"}))["success"])
        self.assertEqual((await sc.list_checkpoints())["checkpoints"][0]["changed"], ["a.txt"])
        self.assertIn("-before\n+after\n", (await sc.diff_checkpoint(cp["id"]))["diff"])
        restored = await sc.restore_checkpoint(cp["id"])
        self.assertEqual(restored["restored"], ["a.txt"])
        self.assertEqual(Path(self.ws, "a.txt").read_text(), "before\n")
        self.assertEqual((await sc.undo_tool_call(restored["callId"]))["restored"], ["a.txt"])
        self.assertEqual(Path(self.ws, "a.txt").read_text(), "after\n")

    async def test_shutdown_now(self):
        sc = await self.start()
        call = asyncio.ensure_future(sc.invoke("bash", {"command": "exec sleep 600"}))
        await asyncio.sleep(0)  # let the call be sent first
        await sc.shutdown_now()
        self.assertEqual((await sc.wait()).returncode, 0)
        with self.assertRaises((RpcError, SidecarExitError)) as cm:
            await call
        if isinstance(cm.exception, RpcError):
            self.assertEqual(cm.exception.code, -32800)
