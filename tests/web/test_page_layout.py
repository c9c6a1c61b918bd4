"""The page's room and legibility: the caret block, resizable panes remembered per browser, the phone layout,
offline /docs, the catalogue's strings, shortcuts, a lost server, dates, and the smaller fixes of the round.

Screenshots at 1440x900 and 390x844 go to tests/web/artifacts/."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from judge.report.catalog import MESSAGES
from tests.web.conftest import REPO
from tests.web.helpers import REFERENCE, SYNTAX_ERROR, fresh_problem_page
from tests.web.test_browser import TIMEOUT, judged_by, replace_code, shot, shot_both

pytestmark = [pytest.mark.slow, pytest.mark.browser]
LONG_LINE_ERROR = 'value = "' + "a" * 300 + '" +\n'

CARET = """() => {
  const pre = document.querySelector('#report-message .caret-block');
  const text = pre.firstChild, lines = text.data.split('\\n');
  const at = lines.findIndex((l) => /^\\s*\\^+\\s*$/.test(l));
  const col = lines[at].indexOf('^');
  const offset = (i, c) => lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0) + c;
  const box = (o) => { const r = document.createRange(); r.setStart(text, o); r.setEnd(text, o + 1);
    return r.getBoundingClientRect(); };
  const style = getComputedStyle(pre), results = document.querySelector('#results').getBoundingClientRect();
  return { caretLeft: box(offset(at, col)).left, aboveRight: box(offset(at - 1, col - 1)).right,
    overflowX: style.overflowX, whiteSpace: style.whiteSpace, font: style.fontFamily,
    left: pre.getBoundingClientRect().left, right: pre.getBoundingClientRect().right, resultsRight: results.right,
    scrolls: pre.scrollWidth > pre.clientWidth };
}"""


CARET_IN_SIGHT = f"() => {{ const c = ({CARET})(); return c.left < c.caretLeft && c.caretLeft < c.right; }}"


@pytest.fixture(scope="module")
def page(server, browser_context):
    page = fresh_problem_page(server, browser_context, TIMEOUT)
    yield page
    page.close()


def judged(page, selector: str = "#run") -> str:
    page.wait_for_selector("#run:enabled")
    return judged_by(page, lambda: page.click(selector))


def editor_lines(page) -> float:
    return page.evaluate(
        "(() => { const root = document.querySelector('#editor').shadowRoot;"
        " return root.querySelector('.cm-scroller').clientHeight"
        " / root.querySelector('.cm-line').getBoundingClientRect().height; })()"
    )


def test_the_caret_sits_under_its_column_in_a_monospace_block_that_scrolls(page):
    replace_code(page, SYNTAX_ERROR)
    assert judged(page).startswith("导入失败")
    caret = page.evaluate(CARET)
    assert caret["whiteSpace"] == "pre" and caret["overflowX"] == "auto"
    assert "mono" in caret["font"].lower()
    assert abs(caret["caretLeft"] - caret["aboveRight"]) < 1  # the ^ starts where the character before it ends
    shot_both(page, "caret")
    replace_code(page, LONG_LINE_ERROR)
    judged(page)
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        # The page scrolls the block to the caret once it has laid it out at the new width (after the resize).
        page.wait_for_function(CARET_IN_SIGHT)
        long = page.evaluate(CARET)
        assert long["scrolls"] and long["right"] <= long["resultsRight"]  # scrolls inside its box, never out
        assert abs(long["caretLeft"] - long["aboveRight"]) < 1
        assert long["left"] < long["caretLeft"] < long["right"]  # scrolled so that the caret is in sight
        page.evaluate("document.getElementById('results').scrollIntoView({block: 'start'})")
        page.screenshot(path=str(REPO / "tests/web/artifacts/caret-long-phone.png"))
    finally:
        page.set_viewport_size({"width": 1440, "height": 900})


def test_the_editor_shows_thirty_lines_and_the_panes_resize_and_are_remembered(page):
    # The verdict before this one grew the results (the editor kept only the lines its file has): not kept.
    doc_lines = page.evaluate("document.querySelector('#editor').shadowRoot.querySelectorAll('.cm-line').length")
    assert editor_lines(page) >= doc_lines and page.locator("#results").bounding_box()["height"] > 350
    # A position the learner chose is kept and wins over that growth: at the default share, thirty lines.
    page.evaluate("localStorage.setItem('practice-layout', JSON.stringify({left: 0.42, editor: 0.82}))")
    page.reload()
    page.wait_for_selector("#verdict:not(.idle)")
    assert editor_lines(page) >= 30
    statement = page.locator("#pane-statement")
    before = statement.bounding_box()["width"]
    bar = page.locator("#split-columns").bounding_box()
    page.mouse.move(bar["x"] + bar["width"] / 2, bar["y"] + 200)
    page.mouse.down()
    page.mouse.move(bar["x"] - 200, bar["y"] + 200, steps=5)
    page.mouse.up()
    narrower = statement.bounding_box()["width"]
    assert narrower < before - 150
    rows = page.locator("#split-rows").bounding_box()
    results_before = page.locator("#results").bounding_box()["height"]
    page.mouse.move(rows["x"] + 100, rows["y"] + rows["height"] / 2)
    page.mouse.down()
    page.mouse.move(rows["x"] + 100, rows["y"] - 150, steps=5)
    page.mouse.up()
    assert page.locator("#results").bounding_box()["height"] > results_before + 100
    shot(page, "resized")  # a phone has one column and no splitters: its shot is problem-phone.png
    page.reload()
    page.wait_for_selector(".cm-content")
    assert abs(statement.bounding_box()["width"] - narrower) < 3  # remembered in this browser
    assert page.locator("#results").bounding_box()["height"] > results_before + 100
    page.evaluate("localStorage.removeItem('practice-layout')")
    page.reload()
    page.wait_for_selector(".cm-content")
    assert abs(statement.bounding_box()["width"] - before) < 3


def test_a_phone_gets_one_column_without_horizontal_scroll(page, server):
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        for path in ("/problems/100", "/"):
            page.goto(server.url + path)
            page.wait_for_selector(".cm-content" if path != "/" else "#problem-rows tr")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        page.screenshot(path=str(REPO / "tests/web/artifacts/home-phone.png"), full_page=True)
        page.goto(server.url + "/problems/100")
        page.wait_for_selector(".cm-content")
        assert page.locator("#editor").bounding_box()["height"] > 300
        page.screenshot(path=str(REPO / "tests/web/artifacts/problem-phone.png"), full_page=True)
    finally:
        page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(server.url + "/problems/100")
    page.wait_for_selector(".cm-content")


def test_docs_work_offline_from_our_own_swagger_ui(page, server):
    docs = page.context.new_page()
    foreign: list[str] = []

    def only_ours(route):
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    docs.route("**/*", only_ours)
    docs.goto(server.url + "/docs")
    expect(docs.locator(".swagger-ui .info .title")).to_contain_text("practice-judge")
    expect(docs.locator(".opblock-summary-path", has_text="/api/submissions/{submission_id}/cancel")).to_be_visible()
    assert foreign == []
    docs.set_viewport_size({"width": 1440, "height": 900})
    docs.screenshot(path=str(REPO / "tests/web/artifacts/docs-offline.png"))
    docs.set_viewport_size({"width": 390, "height": 844})
    docs.screenshot(path=str(REPO / "tests/web/artifacts/docs-offline-phone.png"))
    docs.close()


def test_the_page_takes_its_strings_from_the_catalogue(page):
    served = json.loads(page.inner_text("#page-text"))
    for lang, side in (("zh", 0), ("en", 1)):
        assert served[lang]["publicPassed"] == MESSAGES["page.publicPassed"][side]
        assert served[lang]["verdict.accepted"] == MESSAGES["verdict.accepted"][side]
        assert set(served[lang]) == {k.removeprefix("page.") for k in MESSAGES if k.startswith(("page.", "verdict."))}
    script = (REPO / "web/static/app.js").read_text()
    assert not re.search(r"[\u4e00-\u9fff]", script)  # no Chinese in the script: it holds no texts of its own
    template = (REPO / "web/templates/index.html").read_text()
    assert not re.search(r"[\u4e00-\u9fff]", template.replace("中文", ""))  # only the switch's own name


def test_load_into_editor_asks_before_replacing_a_changed_draft(page):
    page.click(".tab[data-tab=history]")
    page.locator("#history-rows tr").first.wait_for()
    replace_code(page, "# my unsaved work\n")
    page.locator("#history-rows tr").first.click()
    page.wait_for_selector("#history-dialog[open]")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#dialog-load")
    assert "# my unsaved work" in page.inner_text(".cm-content")  # kept: the learner said no
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#dialog-load")
    expect(page.locator("#history-dialog")).not_to_have_attribute("open", "")
    assert "# my unsaved work" not in page.inner_text(".cm-content")
    page.click(".tab[data-tab=statement]")


def test_ctrl_shift_enter_submits_and_the_hint_bar_says_so(page):
    assert "Ctrl/Cmd-Shift-Enter" in page.inner_text(".hintbar")
    replace_code(page, SYNTAX_ERROR)  # answered without a worker: quick
    judged_by(page, lambda: page.keyboard.press("Control+Shift+Enter"))
    assert page.inner_text("#summary").startswith("提交")


def test_english_dates_are_iso_and_the_editor_keeps_chinese_glyphs(page):
    page.click("#lang-en")
    page.click(".tab[data-tab=history]")
    when = page.locator("#history-rows td.when").first.inner_text()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", when), when
    assert page.evaluate("document.documentElement.lang") == "en"
    content_lang = page.evaluate("document.querySelector('#editor').shadowRoot.querySelector('.cm-content').lang")
    assert content_lang == "zh-CN"  # the handbook's Chinese comments keep their Chinese forms
    page.click(".tab[data-tab=statement]")
    page.click("#lang-zh")


def test_a_lost_server_gives_a_bilingual_message_and_a_retry(page):
    replace_code(page, REFERENCE)
    page.route("**/api/submissions*", lambda route: route.abort())
    page.click("#run")
    offline = page.locator("#offline")
    expect(offline).to_be_visible()
    text = offline.inner_text()
    assert "连不上判题服务器" in text and "Cannot reach the judge server" in text and "Failed to fetch" not in text
    shot(page, "offline")
    page.unroute("**/api/submissions*")
    judged_by(page, lambda: page.click("#offline-retry"))
    expect(offline).to_be_hidden()


def test_small_fixes_hint_icon_badge_and_highlighted_sources(page):
    assert "\U0001f4a1" not in page.content()  # no emoji the installed fonts cannot draw
    assert "\U0001f4a1" not in (REPO / "web/static/app.js").read_text()
    badge = page.locator("#problem-meta .badge.medium")
    assert badge.bounding_box()["height"] < 24  # 中等 on one line
    page.click(".tab[data-tab=tests]")
    assert page.locator("#public-tests span.k, #public-tests span.kn").count() > 0  # Pygments classes
    shot(page, "public-tests-highlighted")
    page.click(".tab[data-tab=statement]")


def test_an_accept_whose_gpu_tier_did_not_run_is_a_cpu_pass_and_not_solved(page, server):
    """The report's tiers say the GPU tier was skipped (no GPU runner here): a distinct state, never "solved"."""
    entry = {
        "id": "cpu-only-accept",
        "problem_id": "100",
        "mode": "submit",
        "status": "done",
        "created_at": "2026-12-01T12:00:00Z",
        "finished_at": "2026-12-01T12:00:05Z",
        "verdict": "accepted",
        "passed": 1,
        "total": 1,
        "tiers": {"cpu": "ran", "gpu": "skipped"},
    }
    report = {
        "problem": "100",
        "verdict": "accepted",
        "score": 1,
        "passed": 1,
        "total": 1,
        "mode": "submit",
        "lang": "zh",
        "message": "",
        "output": "",
        "duration_s": 1.0,
        "versions": {},
        "judged_at": "2026-12-01T12:00:05Z",
        "tiers": {"cpu": "ran", "gpu": "skipped"},
        "cases": [
            {"name": "test_cpu", "outcome": "passed", "hidden": False, "message": "", "hint": "", "duration_s": 0}
        ],
    }
    submission = {**entry, "report": report, "code": "x = 1\n", "error_line": None}

    def fulfil(body):
        return lambda route: route.fulfill(json=body)

    page.route("**/api/submissions?problem_id=100*", fulfil([entry]))
    page.route("**/api/submissions?limit=200*", fulfil([entry]))
    page.route("**/api/submissions/cpu-only-accept?*", fulfil(submission))
    try:
        page.reload()
        page.wait_for_selector(".cm-content")
        expect(page.locator("#verdict")).to_have_text("CPU 部分通过")
        assert "cpu-pass" in page.get_attribute("#verdict", "class")
        assert "GPU" in page.inner_text("#verdict-lead") and not page.locator("#next").is_visible()
        shot_both(page, "cpu-tier-passed")
        page.goto(server.url + "/")
        row = page.locator("#problem-rows tr", has_text="100").first
        expect(row.locator(".state")).to_have_text("CPU 部分已通过")
        assert page.inner_text("#progress-text").startswith("已通过 0/")
    finally:
        page.unroute_all()
    page.goto(server.url + "/problems/100")
    page.wait_for_selector(".cm-content")
