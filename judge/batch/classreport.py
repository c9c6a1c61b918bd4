"""class-report.html: one self-contained page (inline SVG, no scripts, no CDN) an instructor reads at a glance."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import quote

from judge.batch.cjkfont import STACK, font_face
from judge.batch.rows import NO_OPERATORS_NOTE, REJECTED, UNCHANGED_NOTE, Row
from judge.batch.similarity import FLOOR, Pair, Similarity, closest, clusters, shared_lines
from judge.batch.zones import shown
from judge.problem.folders import Problem
from judge.report.catalog import say, words
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
PAIRS_SHOWN = 12  # flagged pairs shown side by side (the strongest first); similarity.csv lists them all
LINES_SHOWN = 400  # lines of each file of a pair shown
# A case whose message says it never ran (the file never imported, a limit ended the run before it): it is no
# evidence about the check, so the failure rates leave it out.
NOT_RUN_CASES = ("case.not_run", "case.unreported", "case.after_time_limit")


def render_class_report(summary: dict[str, Any]) -> str:
    """The page, from class_summary's figures."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape  # noqa: PLC0415

    env = Environment(
        loader=FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    template = env.get_template("class-report.html.j2")
    # Rendered twice: the first pass tells which CJK characters the page holds, the second embeds just those.
    face = font_face(template.render(**summary, font_stack=STACK, font_face=""))
    return template.render(**summary, font_stack=STACK, font_face=face)


def class_summary(
    rows: list[Row],
    similarity: Similarity,
    problem: Problem,
    lang: Lang,
    sources: dict[str, str] | None = None,
    zone: tzinfo | None = None,
) -> dict[str, Any]:
    """What the class report shows; sources: each student's file, to show the flagged pairs side by side; times
    shown in `zone`."""
    judged = [r for r in rows if r.report is not None]
    by_student = {r.student: r for r in rows}
    pairs = similarity.pairs
    return {
        "threshold": similarity.threshold,
        "floor": FLOOR,
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
        "evidence": side_by_side(similarity, sources or {}),
        "flagged": sorted((r for r in rows if r.flags), key=lambda r: (-len(r.flags), r.student)),
        "slowest": slowest(judged),
        "checks_shown": CHECKS_SHOWN,
        "colors": COLORS,
        "t": words("classreport", lang),  # the labels, from the one catalogue (judge.report.catalog)
        "problems": [{"row": r, "reason": _reason(r, lang)} for r in rows if r.verdict in NOT_RUN],
        "roster": [_student(r, zone) for r in rows],
        "pending": [r for r in rows if r.pending_tiers],
    }


def side_by_side(similarity: Similarity, sources: dict[str, str]) -> list[dict[str, Any]]:
    """The flagged pairs (the strongest PAIRS_SHOWN), each file's lines with those the two share (and few others
    of the class hold) marked: what to read first."""
    out = []
    for pair in similarity.pairs[:PAIRS_SHOWN]:
        if pair.a not in sources or pair.b not in sources or pair.a not in similarity.prints:
            continue
        left, right = shared_lines(similarity, pair)
        out.append(
            {
                "pair": pair,
                "files": [_numbered(sources[pair.a], left), _numbered(sources[pair.b], right)],
                "shared": [len(left), len(right)],
            }
        )
    return out


def _numbered(source: str, marked: set[int]) -> list[dict[str, Any]]:
    lines = source.splitlines()[:LINES_SHOWN]
    return [{"n": n, "text": text, "shared": n in marked} for n, text in enumerate(lines, 1)]


def _reason(row: Row, lang: Lang) -> str:
    """Why nothing (or nothing of the learner's code) was judged: the rejection, the compile error, the fault."""
    if row.reason:
        return row.reason.get(lang)
    if row.report is None:
        return ""
    text = row.report.message.get(lang) or row.report.detail
    return text[:400]


def _student(row: Row, zone: tzinfo | None = None) -> dict[str, Any]:
    return {
        "student": row.student,
        "name": row.name,
        "verdict": row.verdict,
        "points": row.points,
        "max_points": row.max_points,
        "late": f"{row.days_late}" if row.late else "",
        "submitted": shown(row.submitted, zone) if row.submitted_from != "file" else "",
        "deadline": shown(row.deadline, zone),
        "extension": row.extension,
        "over": _over(row),
        "tiers": row.tiers,
        "pending": bool(row.pending_tiers),
        "flags": row.flags,
        "attempts": len(row.attempts),
        "similar_to": row.similar_to,
        "feedback": f"feedback/{quote(row.student)}.md",
    }


def _over(row: Row) -> str:
    """How far past its deadline a late hand-in was (2d 3h), for the roster's late column."""
    if not row.late or row.submitted is None or row.deadline is None:
        return ""
    minutes = int((row.submitted - row.deadline).total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    if minutes <= 0:
        return ""
    return f"+{days}d {rest // 60}h {rest % 60}m" if days else f"+{rest // 60}h {rest % 60}m"


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
    missed. A submission that ran no test (a limit hit while importing, the untouched starter) is not counted, nor
    a case that never ran (the time limit ended the run before it). A public check is its case name; hidden cases
    are grouped by their author's hint (the lesson they test, across parametrized variants), else by their real
    name (this page is the instructor's)."""
    ran: Counter[tuple[str, str]] = Counter()
    failed: Counter[tuple[str, str]] = Counter()
    info: dict[tuple[str, str], dict[str, Any]] = {}
    not_run = {say(key).en for key in NOT_RUN_CASES}
    for row in rows:
        if row.report is None or row.verdict in NOT_RUN or {UNCHANGED_NOTE, NO_OPERATORS_NOTE} & set(row.notes):
            continue  # nothing of the learner's ran (or the starter, untouched): no evidence about any check
        outcomes: dict[tuple[str, str], bool] = {}
        for case in row.report.cases:
            if case.message.en in not_run or case.outcome == Outcome.skipped:
                continue  # this case never ran the learner's code
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
