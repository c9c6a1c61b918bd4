"""The checker keeps pytest's rewritten test files in a bytecode folder of the user's own, and only there."""

import os
import sys

import pytest

from judge.checker import run


@pytest.fixture
def restore_bytecode_settings():
    kept = sys.pycache_prefix, sys.dont_write_bytecode
    yield
    sys.pycache_prefix, sys.dont_write_bytecode = kept


def test_a_private_folder_is_made_and_used(tmp_path, monkeypatch, restore_bytecode_settings):
    monkeypatch.setattr(run.tempfile, "gettempdir", lambda: str(tmp_path))
    run._keep_rewritten_tests()
    folder = tmp_path / f"practice-judge-{os.getuid()}" / "pyc"
    assert sys.pycache_prefix == str(folder) and not sys.dont_write_bytecode
    assert folder.stat().st_mode & 0o777 == 0o700 and folder.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("loose", ["mine", "pyc"])
def test_a_folder_others_can_write_is_not_used(tmp_path, monkeypatch, restore_bytecode_settings, loose):
    monkeypatch.setattr(run.tempfile, "gettempdir", lambda: str(tmp_path))
    mine = tmp_path / f"practice-judge-{os.getuid()}"
    (mine / "pyc").mkdir(parents=True, mode=0o700)
    mine.chmod(0o700)
    (mine if loose == "mine" else mine / "pyc").chmod(0o777)  # a planted pyc would run in the checker
    sys.pycache_prefix, sys.dont_write_bytecode = None, True
    run._keep_rewritten_tests()
    assert sys.pycache_prefix is None and sys.dont_write_bytecode


@pytest.mark.slow
def test_a_judgement_writes_the_rewritten_tests_there(fixture_judge, fixture_settings):
    import shutil
    import tempfile

    tests = (fixture_settings.problems_dir / "900-echo" / "tests").resolve()
    folder = os.path.join(tempfile.gettempdir(), f"practice-judge-{os.getuid()}", "pyc", *tests.parts[1:])
    shutil.rmtree(folder, ignore_errors=True)
    fixture_judge.grade("900", "def add(a, b):\n    return a + b\n", mode="run")
    assert any(name.startswith("test_public.") and "-pytest-" in name for name in os.listdir(folder))
