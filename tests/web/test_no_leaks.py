"""No route's response contains hidden-test, checker-fixture or solution source (public tests and probes are served)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.web.helpers import REPO, WRONG, events, submit

pytestmark = pytest.mark.slow
PROBLEMS = REPO / "problems"


def secret_lines() -> set[str]:
    """Distinctive lines of every hidden test, conftest and solution that no public file also contains."""
    public = []
    for folder in PROBLEMS.iterdir():
        for path in [
            folder / "starter.py",
            folder / "tests" / "test_public.py",
            folder / "tests" / "probes.py",
            *folder.glob("prompt.*.md"),
        ]:
            if path.exists():
                public.append(path.read_text(encoding="utf-8"))
    public_text = "\n".join(public)
    secret = set()
    for path in [
        *PROBLEMS.glob("*/tests/test_hidden.py"),
        *PROBLEMS.glob("*/tests/conftest.py"),
        *PROBLEMS.glob("*/solutions/**/*.py"),
    ]:
        source = path.read_text(encoding="utf-8")
        shown = hint_lines(path, source)
        for number, line in enumerate(source.splitlines(), start=1):
            line = line.strip()
            if number in shown or line in public_text or line.startswith(("#", '"""', "import ", "from ")):
                continue
            if len(line) >= 30:
                secret.add(line)
    return secret


def hint_lines(path: Path, source: str) -> set[int]:
    """The lines of a hidden test's `@pytest.mark.hint(...)`: its hint is shown by design, its inputs never."""
    lines: set[int] = set()
    if path.parent.name != "tests":
        return lines  # solutions show no hints (and a wrong one may not even parse)
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "hint":
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def every_response(client) -> dict[str, str]:
    texts = {}
    for path in [
        "/",
        "/problems/100",
        "/openapi.json",
        "/pygments.css",
        "/static/app.js",
        "/static/index.html",
        "/static/style.css",
        "/static/learner.js",
        "/api/problems",
        "/api/progress",
        "/guide",
    ]:
        texts[path] = client.get(path).text
    for problem in client.get("/api/problems").json():
        texts[f"/api/problems/{problem['id']}"] = client.get(f"/api/problems/{problem['id']}").text
        texts[f"/api/problems/{problem['id']}/try"] = client.get(f"/api/problems/{problem['id']}/try").text
    example = client.get("/api/problems/100/try").json()[0]["example"]  # the reference runs on the learner's input
    body = {"problem_id": "100", "code": WRONG, "input": example}
    texts["try"] = client.post("/api/try", json=body, timeout=180).text
    assert '"reference"' in texts["try"] and '"differences"' in texts["try"], texts["try"][:300]
    sid = submit(client, WRONG, "submit")  # a submit runs the hidden tests: their text must not come back
    for lang in ("zh", "en"):
        texts[f"events {lang}"] = str(events(client, sid, lang=lang))
        texts[f"submission {lang}"] = client.get(f"/api/submissions/{sid}?lang={lang}").text
    texts["history"] = client.get("/api/submissions").text
    return texts


def test_no_route_serves_hidden_tests_or_solutions(client):
    secret = secret_lines() - {line.strip() for line in WRONG.splitlines()}  # the learner's own code comes back
    assert len(secret) > 200  # the check has something to find
    texts = every_response(client)
    assert '"hidden": true' in texts["events en"].replace("True", "true").replace("'", '"')
    for where, text in texts.items():
        leaked = sorted(line for line in secret if line in text)
        assert not leaked, f"{where} contains {leaked[:3]}"
