"""The instructor's course view: the NRPS roster with who never submitted, best scores and passback states, a
learner's code read-only, regrade all, the export, and courses kept apart."""

from __future__ import annotations

import csv
import io
import sqlite3

import httpx
import pytest

from tests.lti.conftest import REFERENCE, Lms, found, launch, wait_for

pytestmark = pytest.mark.slow
EN = {"accept-language": "en"}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    lms = Lms(tmp_path_factory.mktemp("lti-course")).start()
    lms.platform.link("rl-100", "100")
    other = {"https://purl.imsglobal.org/spec/lti/claim/context": {"id": "course-2", "title": "Another course"}}
    lms.platform.link("rl-other", "100", lineitem="li-2", claims=other)
    with httpx.Client(timeout=60) as learner:
        assert launch(learner, lms, "learner-1", "rl-100").status_code == 303
        sent = learner.post(
            lms.tool.url + "/api/submissions", json={"problem_id": "100", "code": REFERENCE, "mode": "submit"}
        )
        assert sent.status_code == 202
    wait_for("the first score", lambda: lms.platform.gradebook()["scores"])
    try:
        yield lms
    finally:
        lms.stop()


def states(lms) -> list[str]:
    with sqlite3.connect(lms.tool.data_dir / "practice.sqlite3") as db:
        return [s for (s,) in db.execute("SELECT state FROM lti_passbacks ORDER BY created_at")]


def row_of(view: str, sub: str) -> str:
    return found(rf'<tr data-learner="{sub}">(.*?)</tr>', view)[0]


def test_the_roster_holds_everyone_with_their_best_and_its_passback(course):
    with httpx.Client(timeout=60, headers=EN) as teacher:
        assert launch(teacher, course, "teacher-1", "rl-100").headers["location"] == "/lti/course"
        view = teacher.get(course.tool.url + "/lti/course")
        assert view.status_code == 200
        assert "CUDA &amp; PyTorch 2027" in view.text
        ada, grace = row_of(view.text, "learner-1"), row_of(view.text, "learner-2")
        assert "Ada Lovelace" in ada and 'data-verdict="accepted"' in ada and "100%" in ada and "×1" in ada
        assert 'data-passback="sent"' in ada and "in the gradebook" in ada
        assert "Grace Hopper" in grace and "not submitted" in grace  # on the roster, never submitted
        assert 'data-learner="teacher-1"' not in view.text  # instructors are not graded
        learner_page = found(r'href="(/lti/course/learner/[^"]+)">Ada', ada)[0]
        code = teacher.get(course.tool.url + learner_page)
        assert code.status_code == 200 and "register_fake" in code.text and "accepted" in code.text

        exported = teacher.get(course.tool.url + "/lti/course/export.csv")
        rows = list(csv.DictReader(io.StringIO(exported.text)))
        assert [(r["student"], r["name"], r["verdict"], r["score"]) for r in rows] == [
            ("learner-1", "Ada Lovelace", "accepted", "1.0000")
        ]
        xlsx = teacher.get(course.tool.url + "/lti/course/export.xlsx")
        assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"

        # regrade all: the latest Submit judged again; the same score is not sent twice
        regraded = teacher.post(course.tool.url + "/lti/course/regrade", data={"csrf": csrf(view.text)})
        assert regraded.status_code == 303 and regraded.headers["location"] == "/lti/course?regraded=1"
        wait_for("the regrade", lambda: states(course) == ["sent", "none"])
        assert len(course.platform.gradebook()["scores"]) == 1

        # another course of the same platform: none of this course's learners or submissions
        assert launch(teacher, course, "teacher-1", "rl-other").headers["location"] == "/lti/course"
        elsewhere = teacher.get(course.tool.url + "/lti/course").text
        assert "Another course" in elsewhere and 'data-verdict="accepted"' not in elsewhere
        assert teacher.get(course.tool.url + learner_page).status_code == 404


def csrf(view: str) -> str:
    return found(r'name="csrf" value="([0-9a-f]+)"', view)[0]
