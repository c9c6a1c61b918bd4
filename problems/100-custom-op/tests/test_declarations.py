"""The declarations written in your file (read, never run) must agree with what the dispatcher holds."""

import pytest

from judge.report.feedback import msg


@pytest.mark.parametrize("name", ["kv_write", "rms_norm"])
def test_declared_mutation_matches_the_dispatcher(probe, declarations, name):
    s = probe("schema", name, hint=msg(f"读取 {name} 的 schema 时出错", f"reading the schema of {name} failed"))
    assert s is not None, msg(f"没有找到 torch.ops.ex100.{name}", f"torch.ops.ex100.{name} does not exist")
    declarations.check(f"ex100::{name}", {a["name"] for a in s["arguments"] if a["is_write"]})
