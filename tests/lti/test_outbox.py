"""The passback outbox: a platform down during passback gets the score once it is back, across a web restart,
exactly once; a platform's 4xx is a permanent failure the instructor sees with the platform's answer."""

from __future__ import annotations

import sqlite3

import httpx
import pytest

from tests.lti.conftest import REFERENCE, launch, wait_for

pytestmark = pytest.mark.slow


def outbox_row(lms) -> tuple[str, int, str] | None:
    with sqlite3.connect(lms.tool.data_dir / "practice.sqlite3") as db:
        return db.execute("SELECT state, attempts, last_error FROM lti_passbacks").fetchone()


def submit(client: httpx.Client, lms) -> str:
    accepted = client.post(
        lms.tool.url + "/api/submissions", json={"problem_id": "100", "code": REFERENCE, "mode": "submit"}
    )
    assert accepted.status_code == 202, accepted.text
    return accepted.json()["id"]


def test_the_platform_down_then_back_after_a_web_restart_gets_the_score_exactly_once(lms):
    lms.platform.link("rl-100", "100")
    with httpx.Client(timeout=60) as learner:
        assert launch(learner, lms, "learner-1", "rl-100").status_code == 303
        lms.platform.stop()  # the LMS goes down before the Submit is judged
        submit(learner, lms)
    # judged, then tried against the dead platform at least twice (a backoff between), and kept
    wait_for("failed tries", lambda: (row := outbox_row(lms)) and row[0] == "pending" and row[1] >= 2)
    state, _, error = outbox_row(lms)
    assert "ConnectionError" in error
    metrics = httpx.get(lms.tool.url + "/metrics", timeout=30).text
    assert 'practice_lti_passbacks{state="pending"} 1.0' in metrics

    lms.tool.stop()  # the web process restarts while the score waits
    lms.platform.start()
    lms.tool.start()
    wait_for("the score to be sent", lambda: outbox_row(lms)[0] == "sent")
    book = lms.platform.gradebook()
    assert [(s["userId"], s["scoreGiven"]) for s in book["scores"]] == [("learner-1", 10)]
    assert book["posts"] == 1  # the platform saw one score POST for the one judgement
    metrics = httpx.get(lms.tool.url + "/metrics", timeout=30).text
    assert 'practice_lti_passbacks{state="sent"} 1.0' in metrics


def test_a_4xx_from_the_platform_is_permanent_and_shown_to_the_instructor(lms):
    lms.platform.link("rl-100", "100")
    lms.platform.write("faults.json", {"scores": {"status": 422, "message": "learner-1 left the course"}})
    with httpx.Client(timeout=60) as learner:
        assert launch(learner, lms, "learner-1", "rl-100").status_code == 303
        submit(learner, lms)
    wait_for("the refusal", lambda: outbox_row(lms)[0] == "failed")
    state, attempts, error = outbox_row(lms)
    assert attempts == 1 and "HTTP 422" in error and "left the course" in error
    with httpx.Client(timeout=60, headers={"accept-language": "en"}) as teacher:
        assert launch(teacher, lms, "teacher-1", "rl-100").headers["location"] == "/lti/course"
        view = teacher.get(lms.tool.url + "/lti/course").text
    assert 'data-passback="failed"' in view and "refused by the platform: HTTP 422" in view
    assert "left the course" in view
    assert lms.platform.gradebook()["scores"] == []
