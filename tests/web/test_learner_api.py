"""The learner's routes beside judging, over HTTP against the real server: Try (POST /api/try and the exercise's
examples), the progress the page and the terminal share through the data folder, and the learner's guide at /guide
(Swagger stays at /docs)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest

from judge.queue import progress
from judge.report.catalog import say
from tests.web.conftest import REPO, Server
from tests.web.helpers import REFERENCE, WRONG, events, submit

pytestmark = pytest.mark.slow


def test_an_exercise_lists_what_can_be_tried_and_one_without_says_so(client):
    ops = client.get("/api/problems/100/try").json()
    assert [op["name"] for op in ops] == ["rms_norm", "kv_write"]
    assert ops[0]["args"] == ["x", "weight", "eps"] and ops[0]["example"].startswith('op = "rms_norm"')
    none = client.get("/api/problems/101/try?lang=en")
    assert none.status_code == 404 and none.json()["detail"] == say("try.none", id="101").en


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_try_runs_both_and_compares_in_the_readers_language(client, lang):
    example = client.get("/api/problems/100/try").json()[0]["example"].replace("eps = 1e-6", "eps = 0.5")
    body = {"problem_id": "100", "code": WRONG, "input": example}
    answer = client.post(f"/api/try?lang={lang}", json=body, timeout=180)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["status"] == "differs" and result["lang"] == lang
    assert result["message"] == say("try.differs", n=1).get(lang)
    out = next(d for d in result["differences"] if d["name"] == "out")
    assert not out["same"] and out["diff"].startswith("tensor(") and result["op_trace"]["first_difference"] == 3
    same = client.post(f"/api/try?lang={lang}", json={**body, "code": REFERENCE}, timeout=180).json()
    assert same["status"] == "same" and same["reference"] == result["reference"]


@pytest.mark.parametrize(
    "body,status",
    [
        ({"problem_id": "100", "code": "x = 1\n", "input": 'op = "nope"\n'}, 422),
        ({"problem_id": "100", "code": "x = 1\n", "input": "op = "}, 422),
        ({"problem_id": "100", "code": "x = 1\n", "input": "#" * 20000}, 422),
        ({"problem_id": "999", "code": "x = 1\n", "input": 'op = "rms_norm"\n'}, 404),
        ({"problem_id": "101", "code": "x = 1\n", "input": 'op = "rms_norm"\n'}, 404),
        ({"problem_id": "100", "code": "x = 1\n"}, 422),
    ],
)
def test_a_try_that_cannot_run_gets_its_status_and_nothing_runs(client, body, status):
    answer = client.post("/api/try?lang=en", json=body)
    assert answer.status_code == status, answer.text
    assert answer.json()["detail"]


def test_the_page_and_the_terminal_share_progress_through_the_data_folder(server, client, tmp_path):
    shared = client.get("/api/progress").json()
    assert shared["shared"] is True
    progress.record(server.data_dir, "cli", "104", "wrong_answer", "run", True)  # what `practice/judge.py` records
    assert client.get("/api/progress").json()["terminal"]["104"]["verdict"] == "wrong_answer"
    sid = submit(client, REFERENCE, "run")
    assert events(client, sid)[-1][1] == "done"
    assert progress.read(server.data_dir).page["100"].verdict == "accepted"  # what the terminal's --list reads
    env = {
        **os.environ,
        "PRACTICE_DATA_DIR": str(server.data_dir),
        "PRACTICE_SOLUTIONS_DIR": str(tmp_path),
        "PRACTICE_LANG": "en",
    }
    listed = subprocess.run(
        [sys.executable, str(REPO / "practice" / "judge.py"), "--list"], capture_output=True, text=True, env=env
    )
    row = next(line for line in listed.stdout.splitlines() if line.lstrip(" ✓").startswith("100"))
    said = say("list.page", verdict=say("verdict.accepted"), tests=say("list.public_tests")).en
    assert said in row, listed.stdout


def test_a_server_kept_apart_says_so_and_one_without_try_refuses_it(client):
    with tempfile.TemporaryDirectory(prefix="practice-apart-") as data:
        env = {"PRACTICE_WORKERS": "1", "PRACTICE_SHARE_PROGRESS": "false", "PRACTICE_TRY_SLOTS": "0"}
        apart = Server(Path(data), **env).start()
        try:
            progress.record(Path(data), "cli", "100", "accepted", "submit", True)
            answer = httpx.get(apart.url + "/api/progress").json()
            assert answer == {"shared": False, "terminal": {}}
            example = httpx.get(apart.url + "/api/problems/100/try").json()[0]["example"]
            body = {"problem_id": "100", "code": REFERENCE, "input": example}
            refused = httpx.post(apart.url + "/api/try?lang=en", json=body, timeout=60)
            assert refused.status_code == 409 and refused.json()["detail"] == say("try.not_here").en
        finally:
            apart.stop()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_guide_is_at_guide_in_both_languages_and_swagger_stays_at_docs(client, lang):
    guide = client.get(f"/guide?lang={lang}")
    assert guide.status_code == 200 and guide.headers["content-type"].startswith("text/html")
    text = guide.text
    for needle in ("hidden 3", "--hint 1", "judge try 100", "randn", "expr"):
        assert needle in text
    assert say("page.guideTitle").get(lang) in text
    assert ("学习者指南" in text) and ("The learner's guide" in text)  # both, the switch shows one
    assert f'data-guide="{"en" if lang == "zh" else "zh"}" hidden' in text
    assert 'href="/guide"' in client.get("/problems/100").text
    assert "swagger-ui" in client.get("/docs").text
