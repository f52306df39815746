"""Reverse requests: every handler answers its request; a missing handler
answers -32601 (the sidecar does not wait); a handler's exception reaches
the sidecar as an error; a cancelled call cancels the handler's task."""
import asyncio

from .helpers import SidecarTest

QUESTION = {"intro": "One question.", "questions": [{"id": "db", "text": "Which database?", "type": "select", "options": ["Postgres", "SQLite"]}]}
ENV = {"STEERABLE_APPROVALS": "host", "STEERABLE_WEB_SEARCH_PROVIDER": "host"}


class ReverseTest(SidecarTest):
    async def test_every_handler_answers_its_request(self):
        seen = {}

        def ask(req):
            seen["ask"] = req
            return {"answers": {"db": req["questions"][0]["options"][0]["label"]}}

        async def approve(req):
            seen["approval"] = req
            return {"decision": "allow"} if req["arguments"]["command"] == "echo allowed" else {"decision": "deny", "reason": "not that one"}

        def search(req):
            seen["search"] = req
            return {"results": [{"title": "Landlock", "url": "https://landlock.io/", "snippet": "Unprivileged access control"}]}

        sc = await self.start(env=ENV, on_ask_user=ask, on_approval=approve, on_web_search=search,
                              on_host_tool=lambda call: {"success": True, "message": f"ran {call['name']}"})
        asked = await sc.invoke("ask_user", QUESTION, id="c-ask")
        self.assertEqual(asked["data"]["answers"], {"db": "Postgres"})
        self.assertEqual(seen["ask"]["callId"], "c-ask")

        allowed = await sc.invoke("bash", {"command": "echo allowed"}, id="c-bash")
        self.assertEqual(allowed["data"]["stdout"], "allowed\n")
        self.assertEqual(seen["approval"], {"callId": "c-bash", "toolName": "bash", "arguments": {"command": "echo allowed"}, "mode": "local"})
        denied = await sc.invoke("bash", {"command": "echo denied"})
        self.assertEqual(denied["error"], "approval_denied")
        self.assertIn("not that one", denied["message"])
        consented = await sc.invoke("bash", {"command": "echo consented"}, consent_granted=True)
        self.assertEqual(consented["data"]["stdout"], "consented\n")

        await sc.register_host_tools([{"name": "create_event", "description": "Create an event.", "parameters": {"type": "object"}}])
        self.assertEqual((await sc.invoke("create_event", {}))["message"], "ran create_event")

        searched = await sc.invoke("web_search", {"query": "go landlock", "allowed_domains": ["landlock.io"]})
        self.assertEqual(searched["data"]["results"][0]["url"], "https://landlock.io/")
        self.assertEqual(seen["search"], {"query": "go landlock", "maxResults": 8, "allowedDomains": ["landlock.io"], "blockedDomains": []})

    async def test_missing_handlers_answer_method_not_found_at_once(self):
        sc = await self.start(env=ENV)
        asked = await sc.invoke("ask_user", QUESTION)
        self.assertTrue(asked["data"]["cancelled"])
        self.assertIn("the host does not handle ask_user.request", asked["message"])
        approval = await sc.invoke("bash", {"command": "echo hi"})
        self.assertRegex(approval["message"], r"-32601.*no on_approval handler")
        self.assertRegex((await sc.invoke("web_search", {"query": "x"}))["error"], r"-32601.*no on_web_search handler")
        await sc.register_host_tools([{"name": "create_event", "description": "x", "parameters": {"type": "object"}}])
        hosted = await sc.invoke("create_event", {})
        self.assertEqual(hosted["data"]["hostError"]["code"], -32601)

    async def test_a_handler_that_raises(self):
        def broken(_req):
            raise RuntimeError("the dialog crashed")

        async def offline(_call):
            raise RuntimeError("calendar offline")

        sc = await self.start(on_ask_user=broken, on_host_tool=offline)
        self.assertIn("the host answered with an error: on_ask_user failed: the dialog crashed)", (await sc.invoke("ask_user", QUESTION))["message"])
        await sc.register_host_tools([{"name": "create_event", "description": "x", "parameters": {"type": "object"}}])
        self.assertEqual((await sc.invoke("create_event", {}))["data"]["hostError"], {"code": -32603, "message": "on_host_tool failed: calendar offline"})

    async def test_cancelling_the_call_cancels_the_handler(self):
        entered, handler_cancelled = asyncio.Event(), asyncio.Event()

        async def never_answered(_req):
            entered.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                handler_cancelled.set()
                raise

        sc = await self.start(on_ask_user=never_answered)
        call = asyncio.ensure_future(sc.invoke("ask_user", QUESTION))
        await entered.wait()
        call.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await call
        await handler_cancelled.wait()  # the sidecar sent $/cancelRequest for srv_N
        self.assertEqual((await sc.ping())["status"], "ok")
