#!/usr/bin/env python3
"""A Python host on the steerable_sidecar client (asyncio, standard library
only): spawn the sidecar on a scratch workspace, answer its questions, call
two tools, shut down.

    python3 examples/python-host/host.py [path/to/steerable-sidecar]
"""
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
from steerable_sidecar import SidecarError, spawn_sidecar  # noqa: E402


def answer(request):
    """Picks the first option of each question (a real host shows them to the person)."""
    answers = {}
    for q in request["questions"]:
        options = q.get("options") or [{"label": "typed by the python host"}]
        answers[q["id"]] = options[0].get("value") or options[0]["label"]
    return {"answers": answers}


async def main(binary):
    with tempfile.TemporaryDirectory(prefix="sidecar-py-") as ws:
        Path(ws, "hello.txt").write_text("hello from python\n")
        # binary None: $STEERABLE_SIDECAR_BIN, then PATH
        async with spawn_sidecar(ws, binary=binary, on_ask_user=answer) as sidecar:
            print(f"sidecar {sidecar.info['version']} ready, {len(await sidecar.list_tools(view='model'))} tools for the model")
            read = await sidecar.invoke("read_file", {"path": "hello.txt"})
            print(f"read_file: {read['data']['content']!r}")
            question = {"id": "db", "text": "Which database?", "type": "select", "options": ["Postgres", "SQLite"]}
            print("ask_user:", (await sidecar.invoke("ask_user", {"intro": "One question.", "questions": [question]}))["message"])
            print("a misspelt tool:", (await sidecar.invoke("raed_file", {}))["error"])  # a ToolResult, not an exception
    print("python host: ok")


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
    except SidecarError as e:
        sys.exit(f"python host: {e}")
