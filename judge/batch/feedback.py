"""feedback/<student>.md: what the student may see (the public projection, hints included), in one language."""

from __future__ import annotations

import re

from judge.batch.rows import NO_OPERATORS_NOTE, REJECTED, UNCHANGED_NOTE, Row
from judge.report.catalog import say
from judge.report.i18n import Lang
from judge.report.models import Outcome, PublicReport
from judge.report.textsafe import plain

MARKS = {Outcome.passed: "✅", Outcome.failed: "❌", Outcome.error: "❌", Outcome.skipped: "⏭"}


def word(key: str, lang: Lang, **fields: object) -> str:
    """The feedback's own words (feedback.<key> in the catalogue), in the reader's language."""
    return say(f"feedback.{key}", **fields).get(lang)


def verdict_name(verdict: str, lang: Lang) -> str:
    """The verdict's name in the reader's language, from the catalogue (a rejected file's is the feedback's own)."""
    try:
        return word("rejected", lang) if verdict == REJECTED else say(f"verdict.{verdict}").get(lang)
    except KeyError:
        return verdict.replace("_", " ")


def feedback_markdown(row: Row, problem_id: str, lang: Lang) -> str:
    lines = [f"# {word('title', lang, problem=problem_id, student=_inline(row.student))}", ""]
    if row.report is None:
        lines += [
            f"**{word('verdict', lang)}: {verdict_name(REJECTED, lang)}**",
            "",
            word("not_judged", lang) + ":",
            "",
            fenced(row.reason.get(lang)),
        ]
        return "\n".join(lines) + "\n"
    public = row.report.public(lang)
    lines += [
        f"**{word('verdict', lang)}: {verdict_name(public.verdict.value, lang)}** (`{public.verdict.value}`)",
        "",
        word("tests", lang, passed=public.passed, total=public.total, score=row.score),
        "",
    ]
    if row.max_points:
        late = word("late", lang, days=row.days_late) if row.late else ""
        lines += [word("points", lang, points=row.points, max_points=row.max_points) + late, ""]
    if UNCHANGED_NOTE in row.notes:
        lines += [word("unchanged", lang), ""]
    if NO_OPERATORS_NOTE in row.notes:
        lines += [word("no_operators", lang), ""]
    if public.message:
        lines += [fenced(public.message), ""]
    lines += _cases(public, lang)
    return "\n".join(lines) + "\n"


def _cases(public: PublicReport, lang: Lang) -> list[str]:
    if not public.cases:
        return []
    lines = [f"## {word('cases', lang)}", ""]
    for case in public.cases:
        lines.append(f"- {MARKS[case.outcome]} `{_code(case.name)}` {case.outcome.value}")
        if case.outcome != Outcome.passed and case.message:
            lines += ["", _indent(fenced(case.message)), ""]
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


def lms_comment(row: Row, lang: Lang, limit: int = 1500) -> str:
    """The short form of the feedback file, for the LMS's comment box (Moodle's "Feedback comments", Canvas's
    submission comments): the verdict and points, why a file was rejected or scored 0, then each failing check with
    its message (a public test) or its hint (a hidden one), one per line, within `limit` characters."""
    if row.report is None:
        return f"{verdict_name(REJECTED, lang)}: {plain(row.reason.get(lang))}"[:limit]
    public = row.report.public(lang)
    tests = word("tests", lang, passed=public.passed, total=public.total, score=row.score)
    head = f"{verdict_name(public.verdict.value, lang)} · {tests}"
    if row.max_points:
        head += " · " + word("points", lang, points=row.points, max_points=row.max_points)
        if row.late:
            head += word("late", lang, days=row.days_late)
    lines = [head]
    if UNCHANGED_NOTE in row.notes:
        lines.append(word("unchanged", lang))
    if NO_OPERATORS_NOTE in row.notes:
        lines.append(word("no_operators", lang))
    if public.message and public.verdict.value != "accepted":
        lines.append(plain(public.message.splitlines()[0]))
    for case in public.cases:
        if case.outcome == Outcome.passed:
            continue
        what = case.hint if case.hidden else (case.message or case.hint)
        lines.append(f"✗ {plain(case.name)}: {plain(what)}" if what else f"✗ {plain(case.name)}")
    text = "\n".join(dict.fromkeys(lines))  # a message shared by many cases once
    return text if len(text) <= limit else text[: limit - 1].rsplit("\n", 1)[0] + "\n…"
