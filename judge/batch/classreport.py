"""class-report.html: one self-contained page (inline SVG, no scripts, no CDN) an instructor reads at a glance."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from judge.batch.cjkfont import STACK, font_face
from judge.batch.rows import REJECTED, Row
from judge.batch.similarity import NEAR_IDENTICAL, Pair, Threshold, closest, clusters
from judge.problem.folders import Problem
from judge.report.catalog import words
from judge.report.i18n import Lang
from judge.report.models import Outcome, Verdict

COLORS = {
    "accepted": "#2e7d32",
    "wrong_answer": "#c62828",
    "compile_error": "#ef6c00",
    "runtime_error": "#6a1b9a",
    "time_limit_exceeded": "#f9a825",
    "memory_limit_exceeded": "#795548",
    "output_limit_exceeded": "#d81b60",
    "internal_error": "#546e7a",
    REJECTED: "#37474f",
}
ORDER = [v.value for v in reversed(Verdict)] + [REJECTED]  # accepted first, then by rising severity
# Reports whose cases never ran the learner's code: they would count as failing every check.
NOT_RUN = {Verdict.compile_error.value, Verdict.internal_error.value, REJECTED}
SLOWEST = 10
CHECKS_SHOWN = 15  # the rest of the checks fold under a <details>: the top of the list is the lesson missed


def render_class_report(
    rows: list[Row], pairs: list[Pair], problem: Problem, lang: Lang, threshold: Threshold | None = None
) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape  # noqa: PLC0415

    env = Environment(
        loader=FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    template, summary = env.get_template("class-report.html.j2"), class_summary(rows, pairs, problem, lang, threshold)
    # Rendered twice: the first pass tells which CJK characters the page holds, the second embeds just those.
    face = font_face(template.render(**summary, font_stack=STACK, font_face=""))
    return template.render(**summary, font_stack=STACK, font_face=face)


def class_summary(
    rows: list[Row], pairs: list[Pair], problem: Problem, lang: Lang, threshold: Threshold | None = None
) -> dict[str, Any]:
    judged = [r for r in rows if r.report is not None]
    by_student = {r.student: r for r in rows}
    threshold = threshold or Threshold(NEAR_IDENTICAL, 0.0, 0)
    return {
        "threshold": threshold,
        "problem": problem.id,
        "title": problem.meta.title.en if lang == "en" else problem.meta.title.zh,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "lang": lang,
        "students": len(rows),
        "judged": len(judged),
        "accepted": sum(r.verdict == "accepted" for r in rows),
        "mean_score": sum(r.score for r in rows) / len(rows) if rows else 0.0,
        "verdicts": verdict_counts(rows),
        "histogram": score_histogram(rows),
        "checks": check_failures(rows, lang),
        "clusters": [_cluster(group, pairs, by_student) for group in clusters(pairs)],
        "flagged": sorted((r for r in rows if r.flags), key=lambda r: (-len(r.flags), r.student)),
        "slowest": slowest(judged),
        "checks_shown": CHECKS_SHOWN,
        "colors": COLORS,
        "t": words("classreport", lang),  # the labels, from the one catalogue (judge.report.catalog)
        "problems": [{"row": r, "reason": _reason(r, lang)} for r in rows if r.verdict in NOT_RUN],
        "roster": [_student(r) for r in rows],
        "pending": [r for r in rows if r.pending_tiers],
    }


def _reason(row: Row, lang: Lang) -> str:
    """Why nothing (or nothing of the learner's code) was judged: the rejection, the compile error, the fault."""
    if row.reason:
        return row.reason.get(lang)
    if row.report is None:
        return ""
    text = row.report.message.get(lang) or row.report.detail
    return text[:400]


def _student(row: Row) -> dict[str, Any]:
    return {
        "student": row.student,
        "name": row.name,
        "verdict": row.verdict,
        "points": row.points,
        "max_points": row.max_points,
        "late": f"{row.days_late}" if row.late else "",
        "tiers": row.tiers,
        "pending": bool(row.pending_tiers),
        "flags": row.flags,
        "attempts": len(row.attempts),
        "similar_to": row.similar_to,
        "feedback": f"feedback/{quote(row.student)}.md",
    }


def slowest(judged: list[Row]) -> list[dict[str, Any]]:
    """By the submission's own run time (the worker's wall clock): a judgement's total also holds the judge's
    start-up (the first ones of a batch wait for the warm parents) and queueing."""

    def seconds(row: Row) -> float:
        return (row.report.run.wall_s if row.report else None) or row.duration_s

    ranked = sorted(judged, key=lambda r: -seconds(r))[:SLOWEST]
    return [{"student": r.student, "verdict": r.verdict, "seconds": seconds(r)} for r in ranked]


def verdict_counts(rows: list[Row]) -> list[dict[str, Any]]:
    counts = Counter(r.verdict for r in rows)
    return [{"name": v, "count": counts[v], "color": COLORS.get(v, "#999")} for v in ORDER if counts[v]]


def score_histogram(rows: list[Row], bins: int = 10) -> list[dict[str, Any]]:
    """Scores in tenths; the last bin holds full marks alone, so 'all passed' stands apart from 'nearly'."""
    counts = [0] * (bins + 1)
    for row in rows:
        counts[bins if row.score >= 1 else min(int(row.score * bins), bins - 1)] += 1
    labels = [f"{i * 100 // bins}–{(i + 1) * 100 // bins}%" for i in range(bins)] + ["100%"]
    return [{"label": label, "count": count} for label, count in zip(labels, counts)]


def check_failures(rows: list[Row], lang: Lang = "en") -> list[dict[str, Any]]:
    """Per check, how many of the submissions that ran it failed it; highest rate first: the lesson the class
    missed. A public check is its case name; hidden cases are grouped by their author's hint (the lesson they
    test, across parametrized variants), else by their real name (this page is the instructor's)."""
    ran: Counter[tuple[str, str]] = Counter()
    failed: Counter[tuple[str, str]] = Counter()
    info: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        if row.report is None or row.verdict in NOT_RUN:
            continue
        outcomes: dict[tuple[str, str], bool] = {}
        for case in row.report.cases:
            hint = case.hint.get(lang) or case.hint.en
            key = ("hidden", hint or case.name) if case.hidden else ("public", case.name)
            info.setdefault(key, {"names": set(), "hint": hint})["names"].add(case.name)
            outcomes[key] = outcomes.get(key, False) or case.outcome != Outcome.passed
        for key, bad in outcomes.items():
            ran[key] += 1
            failed[key] += bad
    checks = [
        {
            "name": key[1] if key[0] == "public" or not info[key]["hint"] else info[key]["hint"],
            "cases": sorted(info[key]["names"]),
            "hidden": key[0] == "hidden",
            "ran": ran[key],
            "failed": failed[key],
            "rate": failed[key] / ran[key],
        }
        for key in ran
    ]
    return sorted(checks, key=lambda c: (-c["rate"], c["name"]))


def _cluster(group: list[str], pairs: list[Pair], by_student: dict[str, Row]) -> dict[str, Any]:
    inside = [p for p in pairs if p.a in group and p.b in group]
    members = defaultdict(str, {s: by_student[s].verdict for s in group if s in by_student})
    return {
        "members": [{"student": s, "verdict": members[s]} for s in group],
        "top": max((p.score for p in inside), default=0.0),
        "closest": closest(group, pairs),
        "pairs": len(inside),
    }
