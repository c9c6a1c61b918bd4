"""The op trace: recorded in workers, compared on the judge's side, shown for failing public cases only."""

import time

import pytest
import torch

from judge.grading import tracing
from judge.problem.folders import load_problem
from judge.report.models import Outcome, Verdict
from judge.report.optrace import MAX_SHOWN, OpTrace, Trace, TracedOp
from judge.settings import Settings
from judge.worker.optrace import MAX_OPS, traced

WRONG = "problems/100-custom-op/solutions/wrong/"


def ops(*names, writes=()):
    return Trace(ops=[TracedOp(op=n, args=["x"], writes=list(writes)) for n in names])


def test_the_first_difference_is_named_with_both_ops():
    trace = OpTrace.compare("p", ops("aten::clone", "aten::add"), ops("aten::index_copy_", "aten::add", writes=["k"]))
    assert trace.first_difference == 0
    en = trace.summary().en
    assert "aten::index_copy_(x), which writes k in place" in en and "aten::clone(x), which writes none" in en
    assert [r.reference for r in trace.public("en").rows][0] == "aten::index_copy_(x) → k"  # the listing's arrow
    assert trace.public("zh").summary == trace.summary().zh and trace.public("zh").columns == ["参考解", "你的"]


def test_same_ops_say_the_difference_is_elsewhere_and_a_shorter_trace_says_where_it_stopped():
    same = OpTrace.compare("p", ops("aten::add"), ops("aten::add"))
    assert same.first_difference is None and "same aten ops" in same.summary().en
    raised = Trace(ops=[TracedOp(op="aten::add", args=["x"])], raised="IndexError")
    stopped = OpTrace.compare("p", raised, ops("aten::add", "aten::mul"))
    assert stopped.first_difference == 1
    assert "raised IndexError before step 2" in stopped.summary().en
    extra = OpTrace.compare("p", ops("aten::add", "aten::mul"), ops("aten::add"))
    assert "runs more" in extra.summary().en
    never = OpTrace.compare("p", Trace(raised="AttributeError", entered=False), ops("aten::add"))
    assert "raised AttributeError before reaching your operator" in never.summary().en


def test_the_listing_is_capped_around_the_first_difference():
    long = [f"aten::op{i}" for i in range(40)]
    trace = OpTrace.compare("p", ops(*long[:30], "aten::other"), ops(*long))
    rows = trace.public("en").rows
    assert len(rows) == MAX_SHOWN and any(r.step == 31 for r in rows)
    assert trace.public("en").first_difference == 31


def test_the_recorder_names_inputs_views_and_writes_and_keeps_out_the_callers_own_ops():
    lib = torch.library.Library("optrace_test", "FRAGMENT")
    try:

        @torch.library.custom_op("optrace_test::write", mutates_args=("cache",))
        def write(cache: torch.Tensor, rows: torch.Tensor, new: torch.Tensor) -> None:
            cache.index_copy_(0, rows, new * 2)

        pool = torch.zeros(4, 6)
        cache = pool[:, :3]
        before = torch.ones(1)  # an op of the caller's, outside the operator: not traced

        def call():
            _ = before + 1
            write(cache, torch.tensor([1]), torch.ones(1, 3))
            _ = before * 3

        seen = traced(call)
    finally:
        lib._destroy()
    assert seen["raised"] is None and seen["dropped"] == 0
    assert [o["op"] for o in seen["ops"]] == ["aten::mul.Tensor", "aten::index_copy_"]
    assert seen["ops"][0]["args"] == ["new", "2"]
    assert seen["ops"][1]["args"] == ["cache", "0", "rows", "·"] and seen["ops"][1]["writes"] == ["cache"]
    assert pool[1, :3].tolist() == [2.0, 2.0, 2.0]  # traced, the operator still did its work


def test_the_recorder_keeps_a_capped_count():
    @torch.library.custom_op("optrace_test::many", mutates_args=())
    def many(x: torch.Tensor) -> torch.Tensor:
        for _ in range(MAX_OPS + 10):
            x = x + 1
        return x

    seen = traced(lambda: many(torch.zeros(2)))
    assert len(seen["ops"]) == MAX_OPS and seen["dropped"] == 10


@pytest.mark.slow
def test_a_failing_eager_case_of_100_shows_its_ops_beside_the_references(judge):
    report = judge.grade("100", open(WRONG + "kv_rebinds_instead_of_writing.py").read())
    assert report.verdict == Verdict.wrong_answer
    traced_cases = [c for c in report.cases if c.op_trace is not None]
    assert traced_cases and all(not c.hidden and c.outcome == Outcome.failed for c in traced_cases)
    first = traced_cases[0].op_trace
    assert first.first_difference == 0
    assert first.reference.ops[0].op == "aten::index_copy_" and first.reference.ops[0].writes == ["k_cache"]
    assert first.learner.ops[0].op == "aten::index_copy" and first.learner.ops[0].writes == []
    public = report.public("en")
    assert all(c.op_trace is None for c in public.cases if c.hidden)
    shown = next(c for c in public.cases if c.op_trace is not None)
    assert "aten::index_copy_" in shown.op_trace.summary and shown.op_trace.rows[0].step == 1


@pytest.mark.slow
def test_an_accepted_file_is_never_traced(judge):
    report = judge.grade("100", open("problems/100-custom-op/solutions/reference.py").read(), mode="run")
    assert report.verdict == Verdict.accepted and all(c.op_trace is None for c in report.cases)


HANGS_WHEN_TRACED = """    while _get_current_dispatch_mode() is not None:  # only ever under the trace
        pass
    k_cache = k_cache.index_copy(0, slots, k)
"""


@pytest.mark.slow
def test_a_file_that_hangs_only_when_traced_keeps_its_verdict_and_ends(judge, monkeypatch):
    monkeypatch.setattr(tracing, "TRACE_WALL_S", 3.0)
    reference = open("problems/100-custom-op/solutions/reference.py").read()
    body = "    k_cache.index_copy_(0, slots, k)\n    v_cache.index_copy_(0, slots, v)\n"
    assert body in reference
    source = "from torch.utils._python_dispatch import _get_current_dispatch_mode\n" + reference.replace(
        body, HANGS_WHEN_TRACED
    )
    started = time.monotonic()
    report = judge.grade("100", source, mode="run")
    assert report.verdict == Verdict.wrong_answer  # the main pass judged it; the trace pass changed nothing
    assert all(c.op_trace is None for c in report.cases)
    assert time.monotonic() - started < 25


def test_the_trace_key_depends_on_the_call():
    problem = load_problem(Settings().problems_dir / "100-custom-op")
    a = tracing._key(problem, "ref", tracing.TraceRequest(probe="p", frame="AAAA"))
    b = tracing._key(problem, "ref", tracing.TraceRequest(probe="p", frame="AAAB"))
    assert a != b


def test_a_trace_from_the_learners_process_is_bounded_before_it_is_believed():
    from pydantic import ValidationError

    long_arg = {"ops": [{"op": "aten::add", "args": ["x" * 10_000], "writes": []}], "dropped": 0}
    many_ops = {"ops": [{"op": "aten::add"}] * 65}
    for sent in (long_arg, many_ops, {"ops": [{"op": "a" * 201}]}, {"raised": "E" * 101}):
        with pytest.raises(ValidationError):
            Trace.model_validate(sent)
