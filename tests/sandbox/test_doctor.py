"""`judge doctor`: every layer with its state, versions, and a look from inside a sandboxed job; exit 0."""

from __future__ import annotations

import json
import subprocess
import sys

from sandbox.host import LAYERS
from sandbox.paths import REPO_ROOT


def _doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", "doctor", *args], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )


def test_doctor_json():
    done = _doctor("--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(LAYERS) <= set(found["layers"])
    assert all(isinstance(state, str) and state for state in found["layers"].values())
    assert found["versions"]["torch"] and found["versions"]["python"]
    if found["layers"]["seccomp"] == "active":
        assert found["inside"]["open an inet socket"].startswith("blocked")


def test_doctor_text_without_live_check():
    done = _doctor("--no-live")
    assert done.returncode == 0, done.stderr
    for name in LAYERS:
        assert f"\n  {name}" in done.stdout
    assert "torch" in done.stdout
