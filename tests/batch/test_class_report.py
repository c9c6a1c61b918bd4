"""class-report.html rendered in Debian's Chromium: self-contained, every section drawn, learner text inert."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from judge.batch.classreport import check_failures, class_summary, render_class_report, score_histogram
from judge.batch.rows import Row
from judge.batch.similarity import Similarity, Threshold, compare
from judge.problem.folders import ProblemSet
from judge.report.i18n import Text
from judge.report.models import CaseResult, Outcome, Report, Verdict
from tests.batch.conftest import ARTIFACTS, FIXTURE
from tests.needs import CHROMIUM, CHROMIUM_ARGS, need_chromium


def _row(student: str, verdict: Verdict, fails: set[str], flags=(), seconds=1.0) -> Row:
    names = ["test_schema_mutates_args", "test_fake_shape", "test_backward_values", "test_compile_single_graph"]
    cases = [
        CaseResult(name=n, outcome=Outcome.failed if n in fails else Outcome.passed, detail="AssertionError")
        for n in names
    ]
    cases.append(
        CaseResult(
            name="test_hidden_noncontiguous",
            hidden=True,
            hint=Text(zh="非连续缓存", en="non-contiguous caches"),
            outcome=Outcome.failed if "hidden" in fails else Outcome.passed,
        )
    )
    passed = sum(c.outcome == Outcome.passed for c in cases)
    report = Report(
        problem="900",
        verdict=verdict,
        score=passed / len(cases),
        passed=passed,
        total=len(cases),
        cases=cases,
        duration_s=seconds,
        flags=list(flags),
    )
    row = Row.judged(student, f"{student}.py", "0" * 64, report)
    row.max_points, row.points = 10, round(10 * report.score, 2)
    return row


def class_rows() -> list[Row]:
    rows = [_row(f"student{i:02d}", Verdict.accepted, set(), seconds=1 + i / 10) for i in range(12)]
    rows += [_row(f"wa{i}", Verdict.wrong_answer, {"test_schema_mutates_args", "hidden"}, seconds=2) for i in range(7)]
    rows += [_row("slowpoke", Verdict.time_limit_exceeded, {"test_compile_single_graph"}, seconds=60)]
    rows += [_row("x<b>bold</b>y", Verdict.wrong_answer, {"test_fake_shape"}, flags=["frame-walking", "gc"])]
    rows += [Row.rejected("empty", "empty.py", "", Text(zh="文件是空的", en="the file is empty"))]
    return rows


def test_aggregates_rank_the_check_the_class_missed_first():
    checks = {c["name"]: c for c in check_failures(class_rows())}
    top = check_failures(class_rows())[:2]
    assert {c["name"] for c in top} == {"test_schema_mutates_args", "non-contiguous caches"}  # hidden: by hint
    assert checks["non-contiguous caches"]["cases"] == ["test_hidden_noncontiguous"]
    assert all(c["failed"] == 7 and c["ran"] == 21 for c in top)  # the rejected file is not counted
    assert sum(b["count"] for b in score_histogram(class_rows())) == len(class_rows())
    assert score_histogram(class_rows())[-1]["count"] == 12  # full marks stand alone


def test_failure_rates_count_only_the_submissions_that_ran_the_check():
    """A file that hit a limit while importing ran no test, and the untouched starter did no work: neither counts as
    failing every check; nor does a case the time limit ended the run before."""
    from judge.report.catalog import say

    mle = _row("mle", Verdict.memory_limit_exceeded, {"test_schema_mutates_args", "test_fake_shape", "hidden"})
    for case in mle.report.cases:
        case.outcome, case.message = Outcome.error, say("case.not_run")
    starter = _row("starter", Verdict.wrong_answer, {"test_schema_mutates_args", "test_fake_shape"})
    starter.notes = ["starter not changed"]
    tle = _row("tle", Verdict.time_limit_exceeded, {"test_compile_single_graph", "test_backward_values"})
    tle.report.cases[2].message = say("case.after_time_limit")  # test_backward_values never ran
    checks = {c["name"]: c for c in check_failures([*class_rows(), mle, starter, tle])}
    assert checks["test_schema_mutates_args"]["ran"] == 22 and checks["test_schema_mutates_args"]["failed"] == 7
    assert checks["test_backward_values"]["ran"] == 21 and checks["test_backward_values"]["failed"] == 0
    assert checks["test_compile_single_graph"]["ran"] == 22 and checks["test_compile_single_graph"]["failed"] == 2


def _similarity():
    """A real comparison: wa0 and wa1 a copy (from tests.batch.class105), the rest of the class independent."""
    from tests.batch.class105 import class_105

    sources, _ = class_105(size=10, seed=7)
    names = {"s01": "wa0", "bob": "wa1", "s02": "wb0", "dan": "wb1"}
    sources = {names.get(k, k): v for k, v in sources.items()}
    return compare(sources), sources


@pytest.mark.browser
def test_class_report_renders_offline_in_chromium(tmp_path, playwright_session):
    need_chromium()

    problem = ProblemSet(FIXTURE.parent).get("900")
    similarity, sources = _similarity()
    assert [(p.a, p.b) for p in similarity.pairs][:1] == [("wa0", "wa1")]
    rows = class_rows()
    rows[-1].reason = Text.same("the file is empty; " + "/very/long/path/without/breaks" * 12 + " " + "x" * 300)
    html = render_class_report(class_summary(rows, similarity, problem, "en", sources))
    page_path = tmp_path / "class-report.html"
    page_path.write_text(html, encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    outside, errors = [], []
    with nullcontext(playwright_session) as p:  # the process's one Playwright (tests/conftest.py)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route(
            "**/*",
            lambda route: (
                (outside.append(route.request.url), route.abort())
                if not route.request.url.startswith("file://")
                else route.continue_()
            ),
        )
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(page_path.as_uri())
        page.screenshot(path=str(ARTIFACTS / "class-report.png"), full_page=True)
        for section in ("verdicts", "scores", "checks", "similarity", "flagged", "slowest", "roster", "not-judged"):
            assert page.locator(f"#{section}").is_visible(), section
        roster = page.locator("#roster tbody tr")
        assert roster.count() == len(class_rows())  # every student, the rejected one too
        page.locator("#roster th", has_text="points").click()  # sortable: lowest points first
        assert roster.nth(0).locator("td").nth(1).inner_text() == "" and "rejected" in roster.nth(0).inner_text()
        page.locator("#roster th", has_text="points").click()
        assert "accepted" in roster.nth(0).inner_text()
        assert "the file is empty" in page.locator("#not-judged").inner_text()
        assert page.locator("#verdicts svg rect").count() == 4  # accepted, wrong_answer, tle, rejected
        assert page.locator("#scores svg rect").count() == 11
        first_check = page.locator("#checks tr").nth(1).inner_text()
        assert "33%" in first_check and "7/21" in first_check
        assert "wa0" in page.locator("#similarity").inner_text() and "100%" in page.locator("#similarity").inner_text()
        assert page.locator("#similarity .cluster").count() == 2  # the two copies, each a pair of its own
        assert "closest pair: wa0 ↔ wa1 (100%)" in page.locator("#similarity .cluster").first.inner_text()
        assert "Judged against this class's own spread" in page.locator("#threshold").inner_text()
        first = page.locator("#pairs .pair").first  # the pair side by side, the lines they share marked
        assert "wa0 ↔ wa1" in first.locator("h3").inner_text()
        assert first.locator(".file").count() == 2 and first.locator(".ln.shared").count() >= 8
        shared = first.locator(".file").nth(0).locator(".ln.shared").all_inner_texts()
        assert any("dispatch_keys" in line for line in shared)
        # every table fits its card: nothing sticks out of a section (the roster scrolls inside its own box)
        overflow = page.evaluate(
            """() => [...document.querySelectorAll("section")].filter(s => s.scrollWidth > s.clientWidth + 1)
                 .map(s => s.id)"""
        )
        assert overflow == [], overflow
        card = page.locator("#not-judged").bounding_box()
        table = page.locator("#not-judged table").bounding_box()
        assert table["x"] + table["width"] <= card["x"] + card["width"] + 1
        flagged = page.locator("#flagged").inner_text()
        assert "x<b>bold</b>y" in flagged and "frame-walking" in flagged  # shown as text, never as markup
        assert page.evaluate("document.querySelectorAll('script').length") == 1  # the roster's sorting, inline
        assert page.evaluate("document.querySelectorAll('b b, iframe').length") == 0
        assert page.locator("#slowest tr").nth(1).inner_text().startswith("slowpoke")
        browser.close()
    assert outside == [] and errors == []
    assert (ARTIFACTS / "class-report.png").stat().st_size > 10_000


def test_a_pending_gpu_tier_shows_in_the_tiers_column_and_the_report():
    pending = _row("triton", Verdict.accepted, set())
    pending.report.tiers = {"cpu": "ran", "gpu": "skipped"}
    both = _row("cuda", Verdict.accepted, set())
    both.report.tiers = {"cpu": "ran", "gpu": "ran"}
    assert pending.csv_record("en")["tiers"] == "cpu" and both.csv_record("en")["tiers"] == "cpu+gpu"
    problem = ProblemSet(FIXTURE.parent).get("900")
    nothing = Similarity([], Threshold(0.8))
    summary = class_summary([pending, both], nothing, problem, "en")
    assert [r.student for r in summary["pending"]] == ["triton"]
    html = render_class_report(summary)
    section = html[html.index('id="pending"') : html.index('id="roster"')]
    assert "triton" in section and "cuda" not in section


NO_CJK_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{fonts}</dir><cachedir>{cache}</cachedir></fontconfig>
"""
DRAWN = """(family) => {
  const draw = (ch) => {
    const c = document.createElement("canvas"); c.width = c.height = 40;
    const g = c.getContext("2d"); g.font = `32px ${family}`; g.fillText(ch, 2, 32);
    return c.toDataURL();
  };
  return draw("班") !== draw("级");  // a missing glyph draws the same box for both
}"""


@pytest.mark.browser
def test_a_chinese_report_reads_on_a_machine_without_cjk_fonts(tmp_path, playwright_session):
    """The report embeds a subset of the generating machine's CJK font: in a Chromium that sees only a Latin font
    (its own fontconfig), its Chinese still draws as glyphs, not boxes."""
    need_chromium()
    from judge.batch.cjkfont import FAMILY, find_cjk_font

    latin = next((p for p in ("/usr/share/fonts/truetype/dejavu",) if __import__("os").path.isdir(p)), None)
    if find_cjk_font() is None or latin is None:
        import pytest

        pytest.skip("needs a CJK font to embed and DejaVu for the Latin-only browser (.ci/run installs both)")
    problem = ProblemSet(FIXTURE.parent).get("900")
    similarity, sources = _similarity()
    html = render_class_report(class_summary(class_rows(), similarity, problem, "zh", sources))
    assert f'font-family: "{FAMILY}"' in html and "data:font/otf;base64," in html
    assert len(html) < 2_000_000  # a subset, not the whole font
    page_path = tmp_path / "class-report.html"
    page_path.write_text(html, encoding="utf-8")
    (tmp_path / "fonts.conf").write_text(NO_CJK_FONTS.format(fonts=latin, cache=tmp_path / "cache"))
    import os

    env = {**os.environ, "FONTCONFIG_FILE": str(tmp_path / "fonts.conf")}
    with nullcontext(playwright_session) as p:  # the process's one Playwright (tests/conftest.py)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_path.as_uri())
        page.evaluate("document.fonts.ready.then(() => true)")
        assert not page.evaluate(DRAWN, '"NoSuchFont", sans-serif')  # this browser has no CJK font of its own
        assert page.evaluate(DRAWN, FAMILY)  # the report's own subset draws them
        assert "班级报告" in page.locator("h1").inner_text()
        # What Chromium drew each heading's characters with (DevTools' platform fonts): the subset, first text too
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        for selector in ("h1", ".tile span", "h2", "#roster th"):
            node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            assert any(f["isCustomFont"] for f in fonts), (selector, fonts)  # the embedded subset drew its CJK
            assert all(f["isCustomFont"] or "DejaVu" in f["familyName"] for f in fonts), (selector, fonts)
        page.screenshot(path=str(ARTIFACTS / "class-report-zh-no-system-cjk.png"), full_page=True)
        browser.close()
