"""`python practice/judge.py ID PATH --server URL` prints what a local judgement prints, with the same exit status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.web.helpers import EX100, REPO

pytestmark = pytest.mark.slow
TIMING = re.compile(r"\d+\.\d+")


def practice(*args: str, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRACTICE_SOLUTIONS_DIR": str(tmp_path), "PRACTICE_LANG": "en"}
    return subprocess.run(
        [sys.executable, "practice/judge.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def test_compile_error_prints_the_same_locally_and_through_the_server(server, tmp_path):
    path = str(EX100 / "solutions" / "wrong" / "syntax_error.py")
    local = practice("100", path, "--public", tmp_path=tmp_path)
    remote = practice("100", path, "--public", "--server", server.url, tmp_path=tmp_path)
    assert (remote.returncode, TIMING.sub("T", remote.stdout)) == (local.returncode, TIMING.sub("T", local.stdout))
    assert local.returncode == 1 and "line 42" in remote.stdout


def test_reference_through_the_server_exits_0_with_the_public_report(server, tmp_path):
    remote = practice(
        "100",
        str(EX100 / "solutions" / "reference.py"),
        "--public",
        "--json",
        "--server",
        server.url,
        tmp_path=tmp_path,
    )
    assert remote.returncode == 0, remote.stderr
    report = json.loads(remote.stdout)
    assert report["verdict"] == "accepted" and report["mode"] == "run" and report["lang"] == "en"


def test_unreachable_server_is_a_usage_error(tmp_path):
    remote = practice(
        "100", str(EX100 / "solutions" / "reference.py"), "--server", "http://127.0.0.1:9", tmp_path=tmp_path
    )
    assert remote.returncode == 2 and "cannot reach" in remote.stderr
