"""A server without a package an exercise needs lists it as such and refuses its submissions (409), in the reader's
language, instead of judging them into a compile error."""

import shutil
import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from judge.service import Judge
from judge.settings import Settings
from tests.conftest import FIXTURE_PROBLEMS
from tests.web.conftest import Server
from web.app import create_app
from web.config import WebSettings

MISSING = "no_such_package_for_the_judge"


def needing(tmp_path: Path) -> Path:
    """The fixture exercise, needing a package nobody has."""
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURE_PROBLEMS / "900-echo", problems / "900-echo")
    toml = problems / "900-echo" / "problem.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[title]", f'needs = ["{MISSING}"]\n[title]'))
    return problems


def test_problems_list_missing_needs_and_submissions_are_refused(tmp_path):
    problems = needing(tmp_path)
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


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_says_an_exercise_needs_what_the_server_lacks(tmp_path, browser_context):
    problems = needing(tmp_path)
    with tempfile.TemporaryDirectory(prefix="practice-web-needs-") as data:
        server = Server(Path(data), PRACTICE_WORKERS="1", PRACTICE_PROBLEMS_DIR=str(problems)).start()
        page = browser_context.new_page()
        try:
            page.context.add_cookies([{"name": "practice_lang", "value": "en", "url": server.url}])
            for path in ("/", "/problems/900"):
                page.goto(server.url + path)
                note = page.wait_for_selector(".needs")
                assert note.inner_text() == f"needs {MISSING}: not installed on this server, cannot be judged"
            # on the exercise's page, Run and Submit stay disabled and say why (Ctrl-Enter sends nothing either)
            page.wait_for_function("document.getElementById('run').title.length > 0")
            for button in ("#run", "#submit"):
                assert page.is_disabled(button)
                assert page.get_attribute(button, "title") == note.inner_text()
        finally:
            page.close()
            server.stop()
