"""A learner launched from a real platform submits exercise 100's reference: full marks reach its gradebook."""

from __future__ import annotations

import httpx
import pytest

from tests.lti.conftest import REFERENCE, launch, wait_for

pytestmark = pytest.mark.slow


def test_learner_launch_submit_and_score_in_the_platforms_gradebook(lms):
    lms.platform.link("rl-100", "100")
    with httpx.Client(timeout=60) as learner:
        landed = launch(learner, lms, "learner-1", "rl-100")
        assert landed.status_code == 303 and landed.headers["location"] == "/problems/100"
        page = learner.get(lms.tool.url + "/problems/100")
        assert page.status_code == 200 and "Ada Lovelace" in page.text  # named as the LMS names them
        accepted = learner.post(
            lms.tool.url + "/api/submissions", json={"problem_id": "100", "code": REFERENCE, "mode": "submit"}
        )
        assert accepted.status_code == 202, accepted.text
        sid = accepted.json()["id"]
        history = learner.get(lms.tool.url + "/api/submissions").json()
        assert [h["id"] for h in history] == [sid]  # the LTI learner's own

    book = wait_for("the score in the platform's gradebook", lambda: lms.platform.gradebook()["scores"])
    assert len(book) == 1
    score = book[0]
    assert score["userId"] == "learner-1" and score["lineitem"] == "li-1"
    assert score["scoreGiven"] == 10 and score["scoreMaximum"] == 10  # the line item's maximum, full marks
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert score["timestamp"].endswith("Z") and "accepted" in score["comment"]

    with httpx.Client(timeout=30) as stranger:  # an anonymous browser sees none of it
        assert stranger.get(lms.tool.url + "/api/submissions").json() == []
