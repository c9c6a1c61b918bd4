"""Deep linking round trip with the platform: the picker, the signed response it accepts (and a tampered one it
refuses, storing nothing), then a learner launched by the new link lands on its exercise."""

from __future__ import annotations

import base64
import html
import json
import re

import httpx
import pytest

from tests.lti.conftest import Lms, found, launch

pytestmark = pytest.mark.slow  # starts the tool and a platform on loopback: the full lane's, not the fast lane's

RETURN_FORM = re.compile(
    r'<form method="post" action="([^"]+)" id="lti-autosubmit">\s*<input type="hidden" '
    r'name="JWT" value="([^"]+)">'
)


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    setup = Lms(tmp_path_factory.mktemp("lti-dl")).start()
    try:
        yield setup
    finally:
        setup.stop()


def pick(lms, teacher: httpx.Client, points: str = "20") -> tuple[str, str]:
    assert launch(teacher, lms, "teacher-1", "deeplink").headers["location"] == "/lti/picker"
    picker = teacher.get(lms.tool.url + "/lti/picker")
    assert picker.status_code == 200
    row = found(r'<tr data-exercise="100">(.*?)</tr>', picker.text)[0]
    assert "自定义算子" in row or "Custom" in row  # the title, its chapter and languages are in the HTML itself
    assert "中文 · English" in row
    csrf = found(r'name="csrf" value="([0-9a-f]+)"', picker.text)[0]
    answer = teacher.post(lms.tool.url + "/lti/picker", data={"csrf": csrf, "pick": "100", "points-100": points})
    assert answer.status_code == 200, answer.text[:500]
    action, token = found(RETURN_FORM.pattern, answer.text)
    return html.unescape(action), html.unescape(token)


def test_the_picker_answers_a_signed_response_the_platform_takes_and_the_link_launches(lms):
    with httpx.Client(timeout=60) as teacher:
        action, token = pick(lms, teacher)
        assert action == lms.platform.url + "/deeplink/return"
        done = teacher.post(action, data={"JWT": token})
    assert done.status_code == 200 and "1 items added" in done.text
    links = lms.platform.read("links.json", {})
    ((link_id, link),) = links.items()
    assert link["custom"] == {"exercise": "100"}
    assert lms.platform.read("lineitems.json", {})[link["lineitem"]]["scoreMaximum"] == 20
    with httpx.Client(timeout=60) as learner:
        landed = launch(learner, lms, "learner-1", link_id)
        assert landed.status_code == 303 and landed.headers["location"] == "/problems/100"


def test_a_tampered_deep_linking_response_is_refused_and_nothing_added(lms):
    before = lms.platform.read("links.json", {})
    with httpx.Client(timeout=60) as teacher:
        action, token = pick(lms, teacher)
        head, body, signature = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"][0]["custom"]["exercise"] = "107"
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        refused = teacher.post(action, data={"JWT": f"{head}.{forged}.{signature}"})
    assert refused.status_code == 400 and "Signature verification failed" in refused.text
    assert lms.platform.read("links.json", {}) == before


@pytest.mark.parametrize(
    ("form", "why"),
    [
        ({"pick": "999"}, "unknown exercise"),
        ({}, "no exercise chosen"),
        ({"pick": "100", "points-100": "-5"}, "points must be above 0"),
        ({"pick": "100", "points-100": "lots"}, "not a number"),
    ],
)
def test_a_tampered_picker_form_is_refused(lms, form, why):
    with httpx.Client(timeout=60, headers={"accept-language": "en"}) as teacher:
        assert launch(teacher, lms, "teacher-1", "deeplink").status_code == 303
        picker = teacher.get(lms.tool.url + "/lti/picker").text
        csrf = found(r'name="csrf" value="([0-9a-f]+)"', picker)[0]
        answer = teacher.post(lms.tool.url + "/lti/picker", data={"csrf": csrf, **form})
        assert answer.status_code == 400 and why in answer.text
        forged = teacher.post(lms.tool.url + "/lti/picker", data={"csrf": "0" * 64, "pick": "100"})
        assert forged.status_code == 403
