"""What makes a warm local judge stale: every part of its identity (versions, the judge's code, settings), checked
without starting one, and an edit of the judge's own files changes that identity."""

from __future__ import annotations

import os

import pytest

from judge.cli import daemon_wire
from judge.cli.daemon import WarmJudge
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS


@pytest.fixture()
def daemon(tmp_path):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    settings = Settings(problems_dir=FIXTURE_PROBLEMS, daemon_dir=run)
    warm = WarmJudge(run / "judge.sock", settings)
    yield warm, settings
    warm.listener.close()


@pytest.mark.parametrize("part", ["torch", "judge", "python", "code", "problems_dir"])
def test_a_new_torch_judge_python_checkout_or_folder_is_stale(daemon, part):
    warm, settings = daemon
    theirs = {**daemon_wire.identity(settings), part: "something else"}
    assert warm._stale({"identity": theirs}) == f"{part} changed"


def test_other_judging_settings_are_stale_and_the_learner_language_is_not(daemon):
    warm, settings = daemon
    limits = Settings(problems_dir=FIXTURE_PROBLEMS, daemon_dir=settings.daemon_dir, sandbox="local")
    assert warm._stale({"identity": daemon_wire.identity(limits)}) == "settings changed"
    english = Settings(problems_dir=FIXTURE_PROBLEMS, daemon_dir=settings.daemon_dir, lang="en")
    assert daemon_wire.identity(english) == warm.identity


def test_an_edit_of_the_judges_code_changes_its_identity(tmp_path, monkeypatch):
    # A checkout of its own (the real one is shared with warm judges other tests are running).
    for name in ("judge/cli/daemon_wire.py", "judge/versions.py", "sandbox/layers.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.setattr(daemon_wire, "__file__", str(tmp_path / "judge/cli/daemon_wire.py"))
    before = daemon_wire.code_digest()
    assert daemon_wire.code_digest() == before
    for name in ("judge/versions.py", "sandbox/layers.py"):
        edited = tmp_path / name
        info = edited.stat()
        os.utime(edited, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))  # what saving an edit does
        assert daemon_wire.code_digest() != before, name
        before = daemon_wire.code_digest()
