"""Near-identical code found through renamed variables; the starter does not make everyone similar."""

from __future__ import annotations

from judge.batch.similarity import clusters, similar_pairs, similar_to

STARTER = '''import torch


def rms_norm(x, weight, eps=1e-6):
    """Return x / sqrt(mean(x**2) + eps) * weight."""
    raise NotImplementedError
'''
ORIGINAL = '''import torch


def rms_norm(x, weight, eps=1e-6):
    """Return x / sqrt(mean(x**2) + eps) * weight."""
    squares = x.float().pow(2)
    mean_square = squares.mean(dim=-1, keepdim=True)
    scale = torch.rsqrt(mean_square + eps)
    result = (x.float() * scale).to(x.dtype)
    return result * weight


def check(values, expected):
    total = 0
    for index, value in enumerate(values):
        if value != expected[index]:
            total += 1
    return total
'''
RENAMED = '''import torch


def rms_norm(inp, w, epsilon=1e-6):
    """Return x / sqrt(mean(x**2) + eps) * weight."""
    # my own work!
    sq = inp.float().pow(2)
    ms = sq.mean(dim=-1, keepdim=True)
    factor = torch.rsqrt(ms + epsilon)
    out = (inp.float() * factor).to(inp.dtype)
    return out * w


def check(vals, exp):
    n_bad = 0
    for i, v in enumerate(vals):
        if v != exp[i]:
            n_bad += 1
    return n_bad
'''
DIFFERENT = '''import torch


def rms_norm(x, weight, eps=1e-6):
    """Return x / sqrt(mean(x**2) + eps) * weight."""
    norm = torch.linalg.vector_norm(x.double(), ord=2, dim=-1, keepdim=True)
    rms = norm / (x.shape[-1] ** 0.5)
    return (x.double() / torch.sqrt(rms * rms + eps)).to(x.dtype) * weight
'''


def test_a_renamed_variables_copy_is_near_identical_and_a_different_solution_is_not():
    pairs = similar_pairs({"alice": ORIGINAL, "bob": RENAMED, "carol": DIFFERENT}, STARTER)
    assert [(p.a, p.b) for p in pairs] == [("alice", "bob")]
    assert pairs[0].score >= 0.9
    assert similar_to(pairs) == {"alice": ["bob"], "bob": ["alice"]}


def test_the_starter_is_boilerplate():
    """Two students who add a line each to a long starter are not near-identical: the starter is not theirs."""
    both_starter = {"dave": ORIGINAL + "\nX = 1\n", "erin": ORIGINAL + "\nY = [2]\n"}
    assert similar_pairs(both_starter, ORIGINAL) == []
    assert similar_pairs(both_starter, "") != []  # without the starter as boilerplate they would match


def test_clusters_join_chains_of_pairs():
    pairs = similar_pairs({"a": ORIGINAL, "b": RENAMED, "c": ORIGINAL + "\n# c\n", "d": DIFFERENT}, STARTER)
    assert clusters(pairs) == [["a", "b", "c"]]


DICTATED = """@free_slots.register_fake
def _(used):
    ctx = torch.library.get_ctx()
    n = ctx.new_dynamic_size(min=0, max=used.shape[0])
    return used.new_empty((n,), dtype=torch.int64)
"""
OWN_A = (
    "import torch\n\n\n@torch.library.custom_op('ex104::free_slots', mutates_args=())\n"
    "def free_slots(used: torch.Tensor) -> torch.Tensor:\n    return torch.nonzero(~used).flatten()\n\n\n" + DICTATED
)
OWN_B = (
    "import torch\n\n\n@torch.library.custom_op('ex104::free_slots', mutates_args=())\n"
    "def free_slots(used: torch.Tensor) -> torch.Tensor:\n"
    "    idx = torch.arange(used.numel())\n    return idx[used.logical_not()]\n\n\n" + DICTATED
)


def test_code_the_statement_dictates_is_boilerplate_like_the_starter(tmp_path):
    """Two short, independent solutions that share only the fake the statement spells out are not a pair."""
    import shutil

    from judge.batch.similarity import boilerplate_of
    from judge.problem.folders import ProblemSet
    from tests.batch.conftest import FIXTURE

    shutil.copytree(FIXTURE, tmp_path / FIXTURE.name)
    prompt = tmp_path / FIXTURE.name / "prompt.en.md"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\nWrite the fake so:\n\n```python\n" + DICTATED + "```\n")
    problem = ProblemSet(tmp_path).get("900")
    starter = problem.starter_path.read_text(encoding="utf-8")
    [shared] = similar_pairs({"a": OWN_A, "b": OWN_B}, starter, threshold=0.0)
    assert shared.score > 0.7  # the fake dominates what they share
    assert DICTATED.strip() in boilerplate_of(problem)
    [own] = similar_pairs({"a": OWN_A, "b": OWN_B}, boilerplate_of(problem), threshold=0.0)
    assert own.score < 0.5 and similar_pairs({"a": OWN_A, "b": OWN_B}, boilerplate_of(problem)) == []


def test_a_student_is_never_paired_with_their_own_other_entry():
    assert similar_pairs({"alice": ORIGINAL, "alice~2": ORIGINAL, "bob": ORIGINAL}, STARTER) == [
        similar_pairs({"alice": ORIGINAL, "bob": ORIGINAL}, STARTER)[0],
        similar_pairs({"alice~2": ORIGINAL, "bob": ORIGINAL}, STARTER)[0],
    ]


def test_similar_to_lists_the_nearest_first_and_at_most_five():
    from judge.batch.similarity import MAX_SIMILAR, Pair

    pairs = [Pair("a", f"s{i}", 0.8 + i / 100) for i in range(8)]
    near = similar_to(pairs)
    assert near["a"] == ["s7", "s6", "s5", "s4", "s3"] and len(near["a"]) == MAX_SIMILAR
    assert near["s0"] == ["a"]


def test_each_cluster_names_its_closest_pair():
    from judge.batch.similarity import Pair, closest

    pairs = [Pair("a", "b", 0.82), Pair("b", "c", 0.99), Pair("c", "d", 0.85), Pair("x", "y", 0.9)]
    group = clusters(pairs)[0]
    assert group == ["a", "b", "c", "d"]  # transitive: a and d share a cluster at 0.82 and 0.85
    assert closest(group, pairs) == Pair("b", "c", 0.99)


def _problem_105():
    from judge.problem.folders import ProblemSet
    from judge.settings import Settings

    return ProblemSet(Settings().problems_dir).get("105")


def _whole_file_scores(sources: dict[str, str], boilerplate: str) -> dict[frozenset[str], float]:
    """How a fixed-threshold comparison scored the class before: copydetect's own compare_files on whole files, the
    boilerplate set aside, nothing of the class's spread taken into account."""
    import io

    import numpy as np
    from copydetect import CodeFingerprint, compare_files

    base = np.array(sorted(CodeFingerprint("b.py", 25, 1, fp=io.StringIO(boilerplate)).hashes))
    prints = {k: CodeFingerprint("s.py", 25, 1, boilerplate=base, fp=io.StringIO(v)) for k, v in sources.items()}
    names = sorted(prints)
    return {
        frozenset({a, b}): float(sum(compare_files(prints[a], prints[b])[1]) / 2)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    }


def test_on_a_short_exercise_the_real_copies_stand_out_and_the_shared_idiom_flags_no_one():
    """A class of 105 (tests.batch.class105): two real copies among independent solutions that share the chapter's
    idioms. Judged against a fixed 80% on whole files, independent students are flagged; judged against the class's
    own spread (the idioms most of the class holds set aside), exactly the two copies are."""
    from judge.batch.similarity import boilerplate_of, compare
    from tests.batch.class105 import class_105

    boilerplate = boilerplate_of(_problem_105())
    for size, seed in ((26, 105), (28, 1), (30, 3)):
        sources, copies = class_105(size, seed)
        fixed = {pair for pair, score in _whole_file_scores(sources, boilerplate).items() if score >= 0.8}
        assert copies <= fixed and len(fixed - copies) >= 3, (seed, fixed - copies)  # the trap a fixed bar falls in
        found = compare(sources, boilerplate)
        assert {frozenset({p.a, p.b}) for p in found.pairs} == copies, (seed, found.pairs, found.threshold)
        assert found.threshold.by_class and found.threshold.common > 0  # the idioms most of the class holds


def test_a_copy_with_its_functions_reordered_is_still_whole():
    """Each top-level block is fingerprinted alone: reordering a copy's functions does not hide it."""
    from judge.batch.similarity import boilerplate_of, compare
    from tests.batch.class105 import _reordered, class_105

    sources, _ = class_105(26, 105)
    pair = compare({"s02": sources["s02"], "dan": _reordered(sources["s02"])}, boilerplate_of(_problem_105()))
    assert [p.score for p in pair.pairs] == [1.0]


def test_the_lines_a_flagged_pair_shares_are_those_few_others_wrote():
    from judge.batch.similarity import boilerplate_of, compare, shared_lines
    from tests.batch.class105 import IDIOM_AUTOCAST, class_105

    sources, _ = class_105(26, 105)
    found = compare(sources, boilerplate_of(_problem_105()))
    pair = next(p for p in found.pairs if {p.a, p.b} == {"s01", "bob"})
    left, right = shared_lines(found, pair)
    lines = sources[pair.a].splitlines()
    marked = [lines[n - 1] for n in sorted(left)]
    assert any("dispatch_keys" in line or "rest" in line for line in marked)  # the student's own code
    assert IDIOM_AUTOCAST.strip() not in marked  # the line nearly everyone wrote is not evidence
    assert right and max(right) <= len(sources[pair.b].splitlines())


def test_a_class_too_small_for_a_spread_keeps_the_fixed_bar():
    from judge.batch.similarity import MIN_CLASS, NEAR_IDENTICAL, compare

    small = compare({"alice": ORIGINAL, "bob": RENAMED, "carol": DIFFERENT}, STARTER)
    assert small.threshold.value == NEAR_IDENTICAL and not small.threshold.by_class and 3 < MIN_CLASS
