"""A server without a package an exercise needs lists it as such and refuses its submissions (409), in the reader's
language, instead of judging them into a compile error."""

import shutil

from fastapi.testclient import TestClient

from judge.service import Judge
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from web.app import create_app
from web.config import WebSettings

MISSING = "no_such_package_for_the_judge"


def test_problems_list_missing_needs_and_submissions_are_refused(tmp_path):
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
    toml = problems / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[title]", f'needs = ["{MISSING}"]\n[title]'))
    judge = Judge(Settings(problems_dir=problems))
    app = create_app(WebSettings(data_dir=tmp_path / "data", workers=1), judge=judge)
    with TestClient(app) as client:
        listed = client.get("/api/problems").json()
        assert [(p["id"], p["needs"], p["missing"]) for p in listed] == [("900", [MISSING], [MISSING])]
        body = {"problem_id": "900", "code": "def add(a, b):\n    return a + b\n", "mode": "run"}
        refused = client.post("/api/submissions?lang=en", json=body)
        assert refused.status_code == 409
        assert refused.json()["detail"].startswith(f"this judge server does not have {MISSING} installed")
        zh = client.post("/api/submissions?lang=zh", json=body).json()["detail"]
        assert "不能评判练习 900" in zh
        assert client.get("/api/submissions").json() == []  # nothing was stored or queued
    judge.close()
