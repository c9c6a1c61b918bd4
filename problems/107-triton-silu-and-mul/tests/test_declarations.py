"""The declarations written in your file (read, never run) must agree with what the dispatcher holds."""

import pytest

from judge.report.feedback import msg


@pytest.mark.parametrize("name", ["silu_and_mul_out", "silu_and_mul"])
def test_declared_mutation_matches_the_dispatcher(probe, declarations, name):
    s = probe("schema", name, hint=msg("读取 schema 时出错", "reading the schema failed"))
    assert s is not None, msg(f"没有找到 torch.ops.ex107.{name}", f"torch.ops.ex107.{name} does not exist")
    declarations.check(f"ex107::{name}", {a["name"] for a in s["arguments"] if a["is_write"]})
