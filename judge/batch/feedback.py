"""feedback/<student>.md: what the student may see (the public projection, hints included), in one language."""

from __future__ import annotations

import re
from datetime import tzinfo

from judge.batch.checks import Group, groups
from judge.batch.rows import NO_OPERATORS_NOTE, REJECTED, UNCHANGED_NOTE, Row
from judge.batch.zones import shown
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.models import Outcome, PublicReport
from judge.report.textsafe import hide_paths, plain

MARKS = {Outcome.passed: "✅", Outcome.failed: "❌", Outcome.error: "❌", Outcome.skipped: "⏭"}
# An absolute path left once the judge's own installation is hidden (textsafe.hide_paths): a sandbox's work folder
# (/tmp/judge-x1/work/105.py), a path on another machine (C:\\judge\\x.py); not a URL's path (https://pytorch.org/
# docs/...), a fraction, nor what hide_paths left (<site-packages>/torch/library.py).
_HOST_PATH = re.compile(r"(?<![\w:/.~<>-])(?:[A-Za-z]:)?[/\\](?:[^\s/\\:'\"()<>,;]+[/\\])+[^\s/\\:'\"()<>,;]*")


def scrubbed(text: str) -> str:
    """Student-facing text without the grading machine's paths: the judge's installation as textsafe.hide_paths
    names it (<site-packages>/torch/library.py), and any other absolute path cut to its file name (…/105.py). The
    reports judged before hide_paths was applied at the source (a cached report) get the same."""

    def short(match: re.Match[str]) -> str:
        name = re.split(r"[/\\]", match[0])[-1]
        return f"…/{name}" if name else "…/"

    return _HOST_PATH.sub(short, hide_paths(text))


def word(key: str, lang: Lang, **fields: object) -> str:
    """The feedback's own words (feedback.<key> in the catalogue), in the reader's language."""
    return say(f"feedback.{key}", **fields).get(lang)


def verdict_name(verdict: str, lang: Lang) -> str:
    """The verdict's name in the reader's language, from the catalogue (a rejected file's is the feedback's own)."""
    try:
        return word("rejected", lang) if verdict == REJECTED else say(f"verdict.{verdict}").get(lang)
    except KeyError:
        return verdict.replace("_", " ")


def feedback_markdown(row: Row, problem_id: str, lang: Lang, zone: tzinfo | None = None) -> str:
    """The student's feedback: the verdict, how the points add up (each check group with its weight and points, the
    late penalty, the instructor's adjustment), what was left out of the file, then each test. Times in `zone`."""
    lines = [f"# {word('title', lang, problem=problem_id, student=_inline(row.student))}", ""]
    told = [f"- {_inline(t.get(lang))}" for t in row.told]
    if row.report is None:
        lines += [
            f"**{word('verdict', lang)}: {verdict_name(REJECTED, lang)}**",
            "",
            word("not_judged", lang) + ":",
            "",
            fenced(scrubbed(row.reason.get(lang))),
            "",
            *([*told, ""] if told else []),
            *_points(row, lang, zone, []),
        ]
        return "\n".join(lines).rstrip() + "\n"
    public = row.report.public(lang)
    lines += [
        f"**{word('verdict', lang)}: {verdict_name(public.verdict.value, lang)}** (`{public.verdict.value}`)",
        "",
        word("tests", lang, passed=public.passed, total=public.total, score=row.score),
        "",
    ]
    if UNCHANGED_NOTE in row.notes:
        lines += [word("unchanged", lang), ""]
    if NO_OPERATORS_NOTE in row.notes:
        lines += [word("no_operators", lang), ""]
    if told:
        lines += [*told, ""]
    if row.max_points:
        lines += _points(row, lang, zone, groups(row.report, row.max_points, row.score))
    if public.message:
        lines += [fenced(scrubbed(public.message)), ""]
    lines += _cases(public, lang)
    return "\n".join(lines) + "\n"


def _points(row: Row, lang: Lang, zone: tzinfo | None, found: list[Group]) -> list[str]:
    """How the points add up: a table of the check groups (cases passed, weight, points), then the late penalty and
    the instructor's adjustment, then the points."""
    if not row.max_points:
        return []
    lines = [f"## {word('points_title', lang)}", ""]
    if found:
        lines += [
            f"| {word('check', lang)} | {word('passed', lang)} | {word('weight', lang)} | {word('points_col', lang)} |",
            "| --- | ---: | ---: | ---: |",
        ]
        hidden_no = 0
        for group in found:
            hidden_no += not group.public
            each = group.each is not None and group.cases > 1
            weight = f"{group.each:g} × {group.cases}" if each else f"{group.weight:g}"
            lines.append(
                f"| {_cell(group.label(hidden_no, lang))} | {group.passed}/{group.cases} | {weight} | "
                f"{group.points:.2f} / {group.max_points:.2f} |"
            )
        before = sum(g.points for g in found)
        lines += [f"| **{word('sum', lang)}** | | {sum(g.weight for g in found):g} | **{before:.2f}** |", ""]
    lines += [f"- {line}" for line in grade_notes(row, lang, zone)]
    lines += [f"- **{word('points', lang, points=row.points, max_points=row.max_points)}**", ""]
    return lines


def grade_notes(row: Row, lang: Lang, zone: tzinfo | None = None) -> list[str]:
    """What changed the points after the checks, in the student's words: lateness (against their own deadline when
    they had an extension) and its penalty, and the instructor's adjustment with its reason."""
    notes = []
    if row.extension and row.deadline is not None:
        notes.append(word("extension", lang, deadline=shown(row.deadline, zone)))
    if row.late:
        notes.append(word("late_penalty", lang, days=row.days_late, penalty=row.penalty))
    if row.adjustment:
        reason = plain(row.adjustment_reason) or word("no_reason", lang)
        notes.append(word("adjustment", lang, points=f"{row.adjustment:+g}", reason=reason))
    if row.adjustment and row.points in (0.0, row.max_points):
        notes.append(word("clamped", lang, max_points=row.max_points))
    return notes


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _cases(public: PublicReport, lang: Lang) -> list[str]:
    if not public.cases:
        return []
    lines = [f"## {word('cases', lang)}", ""]
    for case in public.cases:
        lines.append(f"- {MARKS[case.outcome]} `{_code(case.name)}` {case.outcome.value}")
        if case.outcome != Outcome.passed and case.message:
            lines += ["", _indent(fenced(scrubbed(case.message))), ""]
        if case.outcome != Outcome.passed and case.hint:
            lines += [f"  {word('hint', lang)}: {_inline(case.hint)}"]
    if any(c.hidden for c in public.cases):
        lines += ["", f"_{word('hidden', lang)}_"]
    return lines


def fenced(text: str) -> str:
    """Text in a code fence longer than any run of backticks inside it: learner text never becomes markup."""
    text = plain(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _indent(block: str) -> str:
    return "\n".join("  " + line for line in block.splitlines())


def _inline(text: str) -> str:
    """One line for markdown prose: markup characters escaped, backticks softened."""
    text = plain(text).replace("\n", " ").replace("`", "'")
    return re.sub(r"([\\*_\[\]<>#|])", r"\\\1", text)


def _code(text: str) -> str:
    """One line inside a code span: no backtick can close it early."""
    return plain(text).replace("\n", " ").replace("`", "'")


def lms_comment(row: Row, lang: Lang, limit: int = 1500, zone: tzinfo | None = None) -> str:
    """The short form of the feedback file, for the LMS's comment box (Moodle's "Feedback comments", Canvas's
    submission comments): the verdict and points, an extension, the late penalty and the instructor's adjustment with
    its reason, why a file was rejected or scored 0, then each failing check with its message (a public test) or its
    hint (a hidden one), one per line, within `limit` characters."""
    notes = grade_notes(row, lang, zone)
    told = [plain(t.get(lang)) for t in row.told]
    if row.report is None:
        head = f"{verdict_name(REJECTED, lang)}: {scrubbed(plain(row.reason.get(lang)))}"
        if row.max_points:
            head += " · " + word("points", lang, points=row.points, max_points=row.max_points)
        return "\n".join([head, *notes, *told])[:limit]
    public = row.report.public(lang)
    tests = word("tests", lang, passed=public.passed, total=public.total, score=row.score)
    head = f"{verdict_name(public.verdict.value, lang)} · {tests}"
    if row.max_points:
        head += " · " + word("points", lang, points=row.points, max_points=row.max_points)
    lines = [head, *notes, *told]
    if UNCHANGED_NOTE in row.notes:
        lines.append(word("unchanged", lang))
    if NO_OPERATORS_NOTE in row.notes:
        lines.append(word("no_operators", lang))
    if public.message and public.verdict.value != "accepted":
        lines.append(scrubbed(plain(public.message.splitlines()[0])))
    for case in public.cases:
        if case.outcome == Outcome.passed:
            continue
        what = scrubbed(case.hint if case.hidden else (case.message or case.hint))
        lines.append(f"✗ {plain(case.name)}: {plain(what)}" if what else f"✗ {plain(case.name)}")
    text = "\n".join(dict.fromkeys(lines))  # a message shared by many cases once
    return text if len(text) <= limit else text[: limit - 1].rsplit("\n", 1)[0] + "\n…"
