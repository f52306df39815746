#!/usr/bin/env python3
"""A minimal MCP server over stdio (newline-delimited JSON-RPC) with one
tool, echo: the plugin both clients' tests list, disable, enable, reload
and unload."""
import json
import sys

TOOLS = [{
    "name": "echo",
    "description": "Echo the text back.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}]


def answer(msg):
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        return {"result": {"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
                           "serverInfo": {"name": "echo", "version": "1.0.0"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return {"result": {"content": [{"type": "text", "text": str(params["arguments"]["text"])}]}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue  # notifications: initialized, cancelled
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **answer(msg)}) + "\n")
    sys.stdout.flush()
