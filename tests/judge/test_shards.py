"""A Run alone on a judge splits its tests over worker/checker pairs that judge at once (judge.checker.shards)."""

import re

import pytest

from judge import Judge
from judge.checker.shards import partition
from judge.report.models import Outcome, Verdict

IDS = [f"test_public.py::case[{i}]" for i in range(20)]


@pytest.mark.parametrize("shards", [1, 2, 3, 5])
@pytest.mark.parametrize("with_costs", [False, True])
def test_every_case_is_in_exactly_one_contiguous_shard(shards, with_costs):
    costs = {case: 0.001 * (i % 7 + 1) for i, case in enumerate(IDS)} if with_costs else {}
    parts = partition(IDS, costs, shards)
    assert len(parts) == shards
    assert [i for part in parts for i in part] == list(range(len(IDS)))  # in order, each once
    assert partition(IDS, costs, shards) == parts  # every checker computes the same split


def test_without_costs_the_shards_have_equal_lengths():
    assert [len(part) for part in partition(IDS, {}, 2)] == [10, 10]
    assert [len(part) for part in partition(IDS, {}, 3)] == [7, 6, 7]  # cuts nearest 6.67 and 13.33
    assert [len(part) for part in partition(IDS, {"only one": 1.0}, 2)] == [10, 10]  # costs for some: ignored


def test_costs_put_the_cut_where_the_time_is_shared():
    """Exercise 100's public Run: three cases hold nearly all the time (a compile and two opchecks)."""
    costs = dict.fromkeys(IDS, 0.005) | {IDS[7]: 0.09, IDS[8]: 0.115, IDS[13]: 0.13}
    first, second = partition(IDS, costs, 2)
    assert (first, second) == (range(0, 9), range(9, 20))
    assert abs(sum(costs[IDS[i]] for i in first) - sum(costs[IDS[i]] for i in second)) < 0.07


def test_no_case_and_one_case():
    assert partition([], {}, 2) == [range(0, 0), range(0, 0)]
    assert sorted(len(part) for part in partition(IDS[:1], {}, 2)) == [0, 1]


PRINTS_PID = "import os\nprint('imported in', os.getpid())\n\ndef add(a, b):\n    return a + b\n"


def pids(output: str) -> list[str]:
    return re.findall(r"imported in (\d+)", output)


@pytest.mark.slow
def test_a_run_alone_is_split_over_two_pairs_and_reads_as_one(fixture_judge, fixture_settings):
    if fixture_settings.run_workers < 2:
        pytest.skip("PRACTICE_RUN_WORKERS=1 here")
    events = []
    report = fixture_judge.grade("900", PRINTS_PID, mode="run", on_event=events.append)
    assert report.verdict == Verdict.accepted
    assert [(c.name, c.outcome) for c in report.cases] == [
        ("test_add[small]", Outcome.passed),
        ("test_add[big]", Outcome.passed),
    ]
    output = report.run.output_tail
    assert output.index("── 1/2 ──") < output.index("── 2/2 ──")  # each worker's output, in the tests' order
    assert len(pids(output)) == 2  # two workers imported the file (each is pid 2 in a pid namespace of its own)
    collected = [e for e in events if e.type == "collected"]
    assert [e.total for e in collected] == [2]  # the learner is told the whole Run's count, once
    finished = [e for e in events if e.type == "case_finished"]
    assert sorted(e.index for e in finished) == [1, 2] and all(e.total == 2 for e in finished)


@pytest.mark.slow
def test_a_split_run_gives_the_verdict_of_one_pair(fixture_judge, fixture_settings):
    """Wrong on the second case only (so on the second shard), and a time limit there: the same report."""
    wrong = "def add(a, b):\n    return a + b if a.numel() == 1 else a - b\n"
    # The loop on one line: the stack dump may land on its test or its body, and both reports must name one line.
    hangs = "def add(a, b):\n    while a.numel() > 1: pass\n    return a + b\n"
    with Judge(fixture_settings.model_copy(update={"run_workers": 1})) as one_pair:
        for source, verdict in ((wrong, Verdict.wrong_answer), (hangs, Verdict.time_limit_exceeded)):
            split = fixture_judge.grade("900", source, mode="run")
            single = one_pair.grade("900", source, mode="run")
            assert split.verdict == single.verdict == verdict
            assert [(c.name, c.outcome, c.message) for c in split.cases] == [
                (c.name, c.outcome, c.message) for c in single.cases
            ]
            assert split.score == single.score and split.passed == single.passed == 1


@pytest.mark.slow
def test_a_submit_is_never_split(fixture_judge):
    report = fixture_judge.grade("900", PRINTS_PID, mode="submit")
    assert report.verdict == Verdict.accepted
    assert len(pids(report.run.output_tail)) == 1 and "── 1/2 ──" not in report.run.output_tail
