"""The TypedDicts in steerable_sidecar/protocol.py are generated from
protocol/schema: this test fails when a schema changed and
gen_protocol.py was not run."""
import json
import shutil
import tempfile
import unittest
from pathlib import Path

import gen_protocol


class ProtocolTest(unittest.TestCase):
    def test_protocol_py_is_what_the_schemas_generate(self):
        self.assertEqual(gen_protocol.OUT_FILE.read_text(), gen_protocol.generate(),
                         "steerable_sidecar/protocol.py is out of date with protocol/schema: run `python3 gen_protocol.py` in clients/python")

    def changed_schemas(self, name, change):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        shutil.copytree(gen_protocol.SCHEMA_DIR, tmp.name, dirs_exist_ok=True)
        path = Path(tmp.name, name)
        schema = json.loads(path.read_text())
        change(schema)
        path.write_text(json.dumps(schema))
        return tmp.name

    def test_a_schema_change_changes_the_types(self):
        d = self.changed_schemas("tool.list.params.json", lambda s: s["properties"].update(limit={"type": "integer"}))
        changed = gen_protocol.generate(d)
        self.assertNotEqual(changed, gen_protocol.generate())
        self.assertRegex(changed, r"class ToolListParams\(TypedDict, total=False\):\n(    .*\n)*    limit: int\n")

    def test_an_unknown_keyword_fails_loudly(self):
        d = self.changed_schemas("plugin.params.json", lambda s: s["properties"]["name"].update(oneOf=[{"type": "string"}]))
        with self.assertRaisesRegex(ValueError, r"plugin.params.json/properties/name: schema keyword oneOf is not supported"):
            gen_protocol.generate(d)

    def test_the_types_import_and_know_their_keys(self):
        from steerable_sidecar import protocol
        self.assertEqual(protocol.ApprovalRequestResult.__required_keys__, frozenset({"decision"}))
        self.assertEqual(protocol.ApprovalRequestResult.__optional_keys__, frozenset({"reason"}))
        self.assertIn("needsFollowup", protocol.ToolResult.__annotations__)
        # "from" is a keyword: the functional form keeps it a required key.
        self.assertEqual(protocol.CheckpointDiffParams.__required_keys__, frozenset({"from"}))
        self.assertEqual(protocol.CheckpointDiffParams.__optional_keys__, frozenset({"to"}))
