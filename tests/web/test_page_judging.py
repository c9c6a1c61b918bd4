"""The page while judging, on the fixture exercise 900 (6 s limit): the clock and running test, a timeout with its
running test marked, Cancel, a public-only pass, an accept with "next", and the last result after a reload.

Screenshots at 1440x900 and 390x844 go to tests/web/artifacts/."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.conftest import FIXTURES
from tests.web.test_browser import TIMEOUT, replace_code, shot_both

pytestmark = [pytest.mark.slow, pytest.mark.browser]
REFERENCE = (FIXTURES / "900-echo" / "solutions" / "reference.py").read_text()
LOOPS = "def add(a, b):\n    while True:  # never returns\n        pass\n"


@pytest.fixture(scope="module")
def page(fixture_server, browser_context):
    page = browser_context.new_page()
    page.set_default_timeout(TIMEOUT)
    # Cookies do not tell ports apart: the other server's page may have left practice_lang=en on 127.0.0.1.
    page.context.add_cookies([{"name": "practice_lang", "value": "zh", "url": fixture_server.url}])
    page.goto(f"{fixture_server.url}/problems/900")
    page.wait_for_selector(".cm-content")
    yield page
    page.close()


def start(page, code: str, button: str = "#run") -> None:
    replace_code(page, code)
    page.wait_for_selector("#run:enabled")
    page.click(button)
    page.wait_for_selector("#run:disabled", timeout=5000)


def wait_done(page) -> str:
    page.wait_for_selector("#run:enabled")
    return page.inner_text("#verdict")


def test_a_loop_shows_the_clock_and_its_running_test_then_the_timeout_marks_it(page):
    start(page, LOOPS)
    # the running test's name comes from the stream's case_started event
    expect(page.locator("#running-case")).to_contain_text("test_add[small]", timeout=TIMEOUT)
    # a Run alone on the judge is split over two pairs (judge/checker/shards.py): both cases run at once, both are named
    expect(page.locator("#running-case")).to_contain_text("test_add[big]", timeout=TIMEOUT)
    assert page.locator("#clock").is_visible() and page.locator("#cancel").is_visible()
    first = page.inner_text("#clock")
    expect(page.locator("#clock")).not_to_have_text(first)  # it ticks
    shot_both(page, "judging-clock")
    assert wait_done(page) == "超时"
    stuck = page.locator("#cases .case.timed-out")
    assert stuck.count() == 1
    assert stuck.locator(".case-name").inner_text() == "test_add[small]"
    assert "时间用完时正在运行这个测试" in stuck.inner_text()
    assert page.locator("#cases .case").first.get_attribute("class").endswith("timed-out")  # listed first
    assert not page.locator("#cancel").is_visible() and not page.locator("#running-case").is_visible()
    shot_both(page, "timeout")


def test_cancel_ends_the_judgement_with_no_report(page, fixture_server):
    start(page, LOOPS)
    expect(page.locator("#running-case")).to_contain_text("test_add[small]", timeout=TIMEOUT)
    page.click("#cancel")
    expect(page.locator("#verdict")).to_have_text("已取消")
    assert page.locator("#run").is_enabled() and not page.locator("#cancel").is_visible()
    last = page.request.get(f"{fixture_server.url}/api/submissions?problem_id=900&limit=1").json()[0]
    assert last["status"] == "cancelled" and last["verdict"] is None
    sub = page.request.get(f"{fixture_server.url}/api/submissions/{last['id']}").json()
    assert sub["status"] == "cancelled" and sub["report"] is None
    again = page.request.post(f"{fixture_server.url}/api/submissions/{last['id']}/cancel")
    assert again.status == 409  # it has ended
    shot_both(page, "cancelled")


def test_a_run_that_passes_the_public_tests_asks_for_a_submit(page):
    start(page, REFERENCE)
    assert wait_done(page) == "公开测试通过：现在提交"
    assert "public-pass" in page.get_attribute("#verdict", "class")
    assert "accepted" not in page.get_attribute("#verdict", "class").split()
    assert "提交" in page.inner_text("#verdict-lead") and not page.locator("#next").is_visible()
    shot_both(page, "run-public-passed")


def test_an_accept_offers_the_next_exercise(page):
    start(page, REFERENCE, "#submit")
    assert wait_done(page) == "通过"
    assert "accepted" in page.get_attribute("#verdict", "class").split()
    link = page.locator("#next")
    expect(link).to_be_visible()  # shown once the page has fetched the list of exercises (after the verdict)
    assert link.get_attribute("href") == "/"  # 900 is the fixture set's only exercise: back to the list
    shot_both(page, "submit-accepted-next")


def test_the_last_result_comes_back_after_a_reload(page):
    cases = page.locator("#cases .case").count()
    page.reload()
    page.wait_for_selector(".cm-content")
    expect(page.locator("#verdict")).to_have_text("通过")
    assert page.locator("#cases .case").count() == cases
    expect(page.locator("#next")).to_be_visible()
    shot_both(page, "reload-restored")


def test_a_cancel_from_another_browser_or_of_an_unknown_id_is_refused(page, fixture_server):
    last = page.request.get(f"{fixture_server.url}/api/submissions?problem_id=900&limit=1").json()[0]
    with httpx.Client(base_url=fixture_server.url) as stranger:  # a second learner: no cookie yet
        assert stranger.post(f"/api/submissions/{last['id']}/cancel").status_code == 403
        assert stranger.post("/api/submissions/no-such-id/cancel").status_code == 404


def test_printed_output_has_its_own_block_above_the_cases_when_the_import_failed(page):
    start(page, 'print("hello from import")\nraise RuntimeError("boom")\n')
    assert wait_done(page).startswith("导入失败")
    top = page.locator("#output-top")
    assert top.is_visible() and top.get_attribute("open") is not None  # open, above the case rows
    assert not page.locator("#output-bottom").is_visible()
    assert "hello from import" in top.locator("pre").inner_text()
    assert "你的代码的输出" in top.locator("summary").inner_text()
    shot_both(page, "output-import-failed")
    start(page, 'def add(a, b):\n    print("adding", a.shape)\n    return a + b\n')
    assert wait_done(page) == "公开测试通过：现在提交"
    bottom = page.locator("#output-bottom")
    assert bottom.is_visible() and bottom.get_attribute("open") is None  # collapsed, after the case rows
    assert not page.locator("#output-top").is_visible()
    bottom.locator("summary").click()
    assert "adding" in bottom.locator("pre").inner_text()


def test_a_503_while_the_judge_is_away_shows_busy_and_the_same_submission_is_sent_again(page):
    """The server answers 503 with Retry-After while its database, broker or disk is away (or its queue is full):
    the page says the judge is busy and retries as asked, then judges as usual; nothing is lost or sent twice."""
    refused = []

    def twice_unavailable(route):
        if route.request.method == "POST" and len(refused) < 2:
            refused.append(route.request.post_data)
            route.fulfill(
                status=503,
                headers={"Retry-After": "1", "content-type": "application/json"},
                body='{"detail": "判题服务暂时无法使用（数据库连不上），请过几秒再试"}',
            )
        else:
            route.continue_()

    page.route("**/api/submissions?*", twice_unavailable)
    try:
        replace_code(page, REFERENCE)
        page.wait_for_selector("#run:enabled")
        page.click("#run")
        expect(page.locator("#busy")).to_be_visible(timeout=5000)
        assert "数据库连不上" in page.inner_text("#busy") and "秒后自动重试" in page.inner_text("#busy")
        shot_both(page, "busy-retrying")
        assert wait_done(page) == "公开测试通过：现在提交"
        assert not page.locator("#busy").is_visible()  # gone once the server answers
        assert len(refused) == 2 and refused[0] == refused[1]  # the very same request, sent again
    finally:
        page.unroute("**/api/submissions?*")
