"""`judge gradescope`: the bundle's run_autograder judges a fake /autograder tree and writes results.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from judge.batch.autograder import main as autograder_main
from judge.batch.gradescope import build_bundle
from tests.batch.conftest import FIXTURE, WRONG, write_tree


def _bundle(tmp_path: Path, fixture_settings) -> Path:
    """The autograder zip, unzipped where Gradescope puts it: ROOT/source."""
    archive = build_bundle("900", tmp_path / "autograder.zip", fixture_settings, lang="en", points=30)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as bundle:
        names = bundle.namelist()
        bundle.extractall(root / "source")
    assert {"setup.sh", "run_autograder", "README.txt", "pyproject.toml", "judge/batch/autograder.py"} <= set(names)
    assert "total points to 30" in (root / "source" / "README.txt").read_text(encoding="utf-8")
    setup = (root / "source" / "setup.sh").read_text(encoding="utf-8")
    assert 'TORCH_INDEX_URL="${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"' in setup  # CPU build
    assert '--index-url "$TORCH_INDEX_URL"' in setup
    assert "problems/900-echo/tests/test_hidden.py" in names and not any("100-custom-op" in n for n in names)
    for script in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / script, 0o755)  # zipfile does not restore modes; Gradescope does
    return root


@pytest.mark.slow  # judges the submission end to end
def test_run_autograder_judges_the_submission_folder(tmp_path, fixture_settings):
    root = _bundle(tmp_path, fixture_settings)
    write_tree(root / "submission", {"my_solution.py": WRONG})
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(
        ["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 0 and "wrong_answer" in results["output"]
    assert [t["name"] for t in results["tests"]] == ["test_add[small]", "test_add[big]", "hidden 1"]
    for test in results["tests"]:
        assert test["status"] == "failed" and test["max_score"] == 10 and test["visibility"] == "visible"
    assert "test_add_seeded" not in json.dumps(results)  # the student's view: hidden names never shown


def test_no_file_to_judge_still_writes_results(tmp_path):
    root = write_tree(tmp_path / "ag", {"submission/a.py": "x = 1", "submission/b.py": "y = 2"})
    status = autograder_main(
        ["--root", str(root), "--problem", "900", "--problems-dir", str(FIXTURE.parent), "--lang", "en"]
    )
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert status == 0 and results["score"] == 0 and "900.py" in results["output"]
