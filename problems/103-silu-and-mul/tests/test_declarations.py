"""The declaration written in your file (read, never run) must agree with what the dispatcher holds."""

from judge.report.feedback import msg


def test_declared_mutation_matches_the_dispatcher(probe, declarations):
    s = probe("schema", hint=msg("读取 schema 时出错", "reading the schema failed"))
    assert s is not None, msg("没有找到 torch.ops.ex103.silu_and_mul", "torch.ops.ex103.silu_and_mul does not exist")
    declarations.check("ex103::silu_and_mul", {a["name"] for a in s["arguments"] if a["is_write"]})
