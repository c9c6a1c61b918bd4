"""The page in Debian's Chromium (Playwright): edit, run, submit, read feedback in both languages, reload.

Screenshots go to tests/web/artifacts/ (git-ignored; CI keeps them as artifacts)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import ARTIFACTS
from tests.web.helpers import REFERENCE, SYNTAX_ERROR, WRONG

pytestmark = [pytest.mark.slow, pytest.mark.browser]
DRAFT = "practice-draft:100"
RUN: dict[str, int] = {}
STEP: list[str] = []


@pytest.fixture(autouse=True)
def _step(request):
    STEP.append(request.node.name)


TIMEOUT = 120_000  # ms: a cold judge starts its warm parents first


@pytest.fixture(scope="module")
def page(server, browser_context):
    page = browser_context.new_page()
    page.set_default_timeout(TIMEOUT)
    problems = []
    page.on("console", lambda m: problems.append(f"{m.text} @ {m.location} {STEP}") if m.type == "error" else None)
    page.goto(f"{server.url}/problems/100")
    page.wait_for_selector(".cm-content")
    yield page
    page.close()
    assert not [p for p in problems if "Content Security Policy" in p and "eval" not in p], (
        problems
    )  # CodeMirror works under the CSP


def replace_code(page, code: str) -> None:
    page.click(".cm-content")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")  # typing over a selection lets Chromium's own editing add styled markup
    page.keyboard.insert_text(code)


def verdict_after(page, click: str | None = None, key: str | None = None) -> str:
    """Start a judgement and wait for its verdict (the buttons come back when `done` arrived)."""
    page.wait_for_selector("#run:enabled")
    return judged_by(page, lambda: page.click(click) if click else page.keyboard.press(key))


# The verdict is cleared before the judgement starts: one quicker than a frame (a syntax error is answered
# without a worker) has its buttons disabled and enabled again before a wait for the disabled state looks.
CLEARED = "document.getElementById('verdict').textContent = ''"
DONE = "() => document.getElementById('verdict').textContent.trim() !== '' && !document.getElementById('run').disabled"


def judged_by(page, act) -> str:
    """act() starts a judgement; its verdict once the page has shown it and given the buttons back."""
    page.evaluate(CLEARED)
    act()
    page.wait_for_function(DONE, timeout=TIMEOUT)
    return page.inner_text("#verdict")


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def shot_both(page, name: str) -> None:
    """The same state at 1440x900 and on a phone (390x844); the page is left at 1440x900."""
    shot(page, name)
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        # one column: the result is below the editor; show its top
        page.evaluate("document.getElementById('results').scrollIntoView({block: 'start'})")
        page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"))
    finally:
        page.set_viewport_size({"width": 1440, "height": 900})


def test_type_then_run_with_ctrl_enter_passes_the_public_cases(page):
    replace_code(page, REFERENCE)
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# 我的解答\n")
    assert verdict_after(page, key="Control+Enter") == "公开测试通过：现在提交"  # a Run is not an accept
    public = page.locator("#cases .case").count()
    assert public > 0 and page.locator("#cases .case.passed").count() == public
    assert f"{public}/{public}" in page.inner_text("#summary")
    RUN["public"] = public
    assert "# 我的解答" in page.evaluate(f"localStorage.getItem('{DRAFT}')")
    shot(page, "run-accepted")


def test_submit_the_reference_is_accepted_with_hidden_cases(page):
    assert verdict_after(page, click="#submit") == "通过"
    total = page.locator("#cases .case.passed").count()
    assert total > RUN["public"] and f"{total}/{total}" in page.inner_text("#summary")  # public and hidden
    assert "隐藏测试" in page.inner_text("#cases")
    expect(page.locator("#next")).to_have_attribute("href", "/problems/101")  # the next exercise, once fetched
    assert "下一题" in page.inner_text("#next")
    shot_both(page, "submit-accepted")


def test_wrong_solution_shows_the_failing_case_with_its_message(page):
    replace_code(page, WRONG)
    assert verdict_after(page, click="#run") == "答案错误"
    failing = page.locator("#cases .case.failed").first
    assert failing.locator(".case-name").inner_text()
    assert failing.locator(".case-message").inner_text().strip()
    # The op trace of its failing eager case: the reference's aten ops beside the learner's, the step that differs
    # (eps) marked, in the page's language; never under a hidden case.
    trace = page.locator("#cases .case.failed .op-trace").first
    expect(trace.locator("tr.differs")).to_contain_text("aten::add.Tensor")
    assert "第 3 步不同" in trace.locator(".op-trace-summary").inner_text()
    assert trace.locator("th").nth(1).inner_text() == "参考解"
    assert page.locator("#cases .case", has_text="隐藏测试").locator(".op-trace").count() == 0
    shot(page, "wrong-answer-zh")


def test_switch_to_english_changes_the_feedback_without_judging_again(page):
    message_zh = page.locator("#cases .case.failed .case-message").first.inner_text()
    history_rows = page.locator("#history-rows tr").count()
    page.click("#lang-en")
    expect(page.locator("#verdict")).to_have_text("Wrong answer")
    message_en = page.locator("#cases .case.failed .case-message").first.inner_text()
    assert message_en.strip() and message_en != message_zh
    assert "step 3 differs" in page.locator("#cases .op-trace-summary").first.inner_text()
    assert page.inner_text("#run") == "Run"
    assert "Custom operators" in page.inner_text("#statement")
    assert page.locator("#history-rows tr").count() == history_rows  # nothing was judged again
    shot(page, "wrong-answer-en")


def test_import_error_is_marked_at_its_line_in_the_editor(page):
    replace_code(page, SYNTAX_ERROR)
    assert verdict_after(page, click="#run").startswith("Import failed (compile error)")
    page.wait_for_selector(".cm-lintRange-error")
    assert page.locator(".cm-lint-marker-error").count() == 1
    shot(page, "import-error")


def test_reload_keeps_the_draft_and_shows_the_history(page):
    page.reload()
    page.wait_for_selector(".cm-content")
    assert page.evaluate(f"localStorage.getItem('{DRAFT}')") == SYNTAX_ERROR
    assert "A syntax error" in page.inner_text(".cm-content")
    page.click(".tab[data-tab=history]")
    rows = page.locator("#history-rows tr")
    rows.first.wait_for()
    assert rows.count() >= 4
    rows.last.click()  # the first judgement: the typed reference, run
    page.wait_for_selector("#history-dialog[open]")
    assert "# 我的解答" in page.inner_text("#dialog-code")
    assert page.inner_text("#verdict") == "Public tests passed: now Submit"
    shot(page, "history")
    page.click("#dialog-close")


def test_reset_to_starter_asks_first(page, server):
    starter = page.request.get(f"{server.url}/api/problems/100").json()["starter"]
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#reset")
    assert page.evaluate(f"localStorage.getItem('{DRAFT}')") == SYNTAX_ERROR
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#reset")
    assert starter.splitlines()[0] in page.inner_text(".cm-content")
    assert page.evaluate(f"localStorage.getItem('{DRAFT}')") is None


def test_problem_list_shows_the_learners_state(page, server):
    page.goto(server.url + "/")
    row = page.locator("#problem-rows tr", has_text="100")
    row.first.wait_for()
    assert row.first.locator(".state").inner_text() == "solved"
    assert re.match(r"1 of \d+ exercises solved", page.inner_text("#progress-text"))  # overall progress
    assert page.locator("#progress-fill").bounding_box()["width"] > 0
    shot_both(page, "home")
    row.first.locator("a").click()
    page.wait_for_url("**/problems/100")
    page.wait_for_selector(".cm-content")
