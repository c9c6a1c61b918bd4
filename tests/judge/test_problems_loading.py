"""Problem folders: discovery, strict metadata, unique ids, unknown ids."""

import shutil

import pytest

from judge.errors import ProblemInvalid, UnknownProblem
from judge.problem.folders import ProblemSet
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS


@pytest.fixture
def problems_copy(tmp_path):
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", tmp_path / "900-echo")
    return tmp_path


def test_fixture_problem_loads(problems_copy):
    problem = ProblemSet(problems_copy).get("900")
    assert problem.meta.limits.wall_s == 6
    assert problem.meta.limits.memory_mib == 2048  # default


def test_unknown_problem_names_the_known_ones(problems_copy):
    with pytest.raises(UnknownProblem, match="known: 900"):
        ProblemSet(problems_copy).get("999")


def test_extra_metadata_key_is_rejected(problems_copy):
    toml = problems_copy / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text() + 'surprise = "yes"\n')
    with pytest.raises(ProblemInvalid, match="surprise"):
        ProblemSet(problems_copy).all()


def test_folder_and_metadata_must_agree(problems_copy):
    (problems_copy / "900-echo").rename(problems_copy / "901-echo")
    with pytest.raises(ProblemInvalid, match="900-echo"):
        ProblemSet(problems_copy).all()


def test_duplicate_ids_are_rejected(problems_copy):
    shutil.copytree(problems_copy / "900-echo", problems_copy / "900-other")
    toml = problems_copy / "900-other" / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "echo"', 'slug = "other"'))
    with pytest.raises(ProblemInvalid, match="two folders"):
        ProblemSet(problems_copy).all()


def test_wrong_solution_without_declaration_is_reported(problems_copy):
    (problems_copy / "900-echo" / "solutions" / "wrong" / "nodecl.py").write_text("def add(a, b):\n    return 0\n")
    with pytest.raises(ProblemInvalid, match="expect"):
        ProblemSet(problems_copy).get("900").wrong_solutions()


def test_real_problem_ids_are_unique_and_valid():
    problems = ProblemSet(Settings().problems_dir).all()
    assert problems, "the repository ships at least exercise 100"
    assert len({p.id for p in problems}) == len(problems)
