"""In Chromium: a learner opens the exercise from the LMS's course page (the tool in its iframe), submits 100's
reference in the editor, and the platform's gradebook holds the score; the instructor's picker and course view."""

from __future__ import annotations

import pytest

from tests.lti.conftest import REFERENCE, wait_for
from tests.web.test_browser import TIMEOUT

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_launch_in_the_lms_iframe_submit_then_the_gradebook_then_picker_and_course_view(lms, fresh_browser_context):
    lms.platform.link("rl-100", "100")
    page = fresh_browser_context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        page.goto(f"{lms.platform.url}/frame?user=learner-1&link=rl-100")
        tool = page.frame_locator("#tool")
        tool.locator(".cm-content").wait_for()  # the editor, inside the LMS's iframe (frame-ancestors lets it)
        assert tool.locator("#learner-name").inner_text() == "Ada Lovelace"
        tool.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(REFERENCE)
        tool.locator("#submit").click()
        tool.locator("#verdict").filter(has_text="通过").wait_for(timeout=TIMEOUT)
        scores = wait_for("the gradebook", lambda: lms.platform.gradebook()["scores"])
        assert [(s["userId"], s["scoreGiven"], s["scoreMaximum"]) for s in scores] == [("learner-1", 10, 10)]

        # the instructor's picker: the exercise list is in the HTML; a pick goes back to the platform, signed
        page.goto(f"{lms.platform.url}/frame?user=teacher-1&link=deeplink")
        tool.locator('tr[data-exercise="100"]').wait_for()
        tool.locator("#pick-100").check()
        tool.locator('input[name="points-100"]').fill("25")
        tool.locator("#picker-submit").click()
        tool.locator("#dl-done").wait_for()  # the platform took the response (autosubmit.js posted it)
        added = [link for key, link in lms.platform.read("links.json", {}).items() if key.startswith("dl-link")]
        assert [link["custom"] for link in added] == [{"exercise": "100"}]

        # the course view: the roster, Ada's accepted score in the gradebook, Grace not submitted
        page.goto(f"{lms.platform.url}/frame?user=teacher-1&link=rl-100")
        ada = tool.locator('tr[data-learner="learner-1"] td.cell')
        ada.wait_for()
        assert ada.get_attribute("data-verdict") == "accepted" and ada.get_attribute("data-passback") == "sent"
        assert "未提交" in tool.locator('tr[data-learner="learner-2"]').inner_text()
    finally:
        page.close()
