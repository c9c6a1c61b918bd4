"""Small helpers the web tests share: submit, read a whole event stream."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from judge.cli.server_client import sse_events

REPO = Path(__file__).resolve().parents[2]
EX100 = REPO / "problems" / "100-custom-op"
REFERENCE = (EX100 / "solutions" / "reference.py").read_text()
WRONG = (EX100 / "solutions" / "wrong" / "rms_ignores_eps.py").read_text()
SYNTAX_ERROR = (EX100 / "solutions" / "wrong" / "syntax_error.py").read_text()


def submit(client: httpx.Client, code: str, mode: str = "run", problem_id: str = "100") -> str:
    response = client.post("/api/submissions", json={"problem_id": problem_id, "code": code, "mode": mode})
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "queued"
    return response.json()["id"]


def events(client: httpx.Client, submission_id: str, lang: str = "zh", last_id: str | None = None) -> list[tuple]:
    """Every event until the server closes the stream: (id, kind, data)."""
    headers = {"Last-Event-ID": last_id} if last_id else {}
    with client.stream(
        "GET",
        f"/api/submissions/{submission_id}/events",
        params={"lang": lang},
        headers=headers,
        timeout=httpx.Timeout(10, read=120),
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return [(i, kind, json.loads(data)) for i, kind, data in sse_events(response)]


def fresh_problem_page(server, context, timeout_ms: int, lang: str = "zh", problem: str = "100"):
    """A new tab on an exercise's page in `lang`, this browser's storage cleared (no draft, layout or hints kept)."""
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.context.add_cookies([{"name": "practice_lang", "value": lang, "url": server.url}])
    page.goto(f"{server.url}/problems/{problem}")
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector(".cm-content")
    return page
