"""Write every output of a batch into DIR, each file atomically, all from the same rows (a partial run stays whole)."""

from __future__ import annotations

import json
from datetime import tzinfo
from pathlib import Path

from judge.batch.cache import write_atomic
from judge.batch.classreport import class_summary, render_class_report
from judge.batch.exports import (
    canvas_comments_csv,
    canvas_csv,
    grades_csv,
    grades_xlsx,
    gradescope_results,
    junit_xml,
    moodle_csv,
    reports_jsonl,
    skipped_csv,
)
from judge.batch.feedback import feedback_markdown
from judge.batch.inputs import Skipped
from judge.batch.policy import GradeOptions
from judge.batch.rows import NO_OPERATORS_NOTE, UNCHANGED_NOTE, Row
from judge.batch.similarity import Pair, boilerplate_of, compare, similar_to
from judge.batch.spreadsheet import csv_bytes
from judge.problem.folders import Problem
from judge.report.i18n import Lang


def write_outputs(
    out: Path,
    rows: list[Row],
    sources: dict[str, str],
    problem: Problem,
    lang: Lang,
    options: GradeOptions | None = None,
    skipped: list[Skipped] | None = None,
) -> list[Pair]:
    """grades.csv and .xlsx, reports.jsonl, feedback/<student>.md, gradescope/<student>/results.json, junit.xml,
    similarity.csv, skipped.csv, class-report.html, and the LMS exports asked for. Returns the near-identical pairs.

    Files of students not in rows are left as they are: nothing is deleted."""
    options = options or GradeOptions()
    rows = sorted(rows, key=lambda r: r.student)
    # rejected files (10 MB, binary) are not compared, nor the untouched starter: no work, nothing to have copied
    judged = {
        r.student for r in rows if r.report is not None and not {UNCHANGED_NOTE, NO_OPERATORS_NOTE} & set(r.notes)
    }
    compared = {s: src for s, src in sources.items() if s in judged}
    similarity = compare(compared, boilerplate_of(problem))
    pairs = similarity.pairs
    near = similar_to(pairs)
    for row in rows:
        row.similar_to = near.get(row.student, [])
    zone = options.zone
    _write_per_student(out, rows, problem.id, lang, zone)
    write_atomic(out / "similarity.csv", _similarity_csv(pairs))
    write_atomic(out / "skipped.csv", skipped_csv([(s.path, s.reason) for s in skipped or []]))
    write_atomic(out / "junit.xml", junit_xml(rows, problem.id))
    write_atomic(out / "reports.jsonl", reports_jsonl(rows, lang))
    page = render_class_report(class_summary(rows, similarity, problem, lang, compared, zone))
    write_atomic(out / "class-report.html", page.encode("utf-8"))
    if "canvas" in options.lms:
        title = problem.meta.title.en if lang == "en" else problem.meta.title.zh
        write_atomic(out / "canvas.csv", canvas_csv(rows, options.lms_column or title, options.gradebook_names))
        write_atomic(out / "canvas-comments.csv", canvas_comments_csv(rows, lang, zone))
    if "moodle" in options.lms:
        write_atomic(out / "moodle.csv", moodle_csv(rows, lang, zone))
    write_atomic(out / "grades.xlsx", grades_xlsx(rows, lang, zone))
    write_atomic(out / "grades.csv", grades_csv(rows, lang, zone))  # last: its presence says the rest is written
    return pairs


def _write_per_student(out: Path, rows: list[Row], problem_id: str, lang: Lang, zone: tzinfo) -> None:
    for row in rows:
        text = feedback_markdown(row, problem_id, lang, zone)
        write_atomic(out / "feedback" / f"{row.student}.md", text.encode("utf-8"))
        results = json.dumps(gradescope_results(row, lang), ensure_ascii=False, indent=1)
        write_atomic(out / "gradescope" / row.student / "results.json", results.encode("utf-8"))


def _similarity_csv(pairs: list[Pair]) -> bytes:
    return csv_bytes(["student_a", "student_b", "score"], ([p.a, p.b, f"{p.score:.3f}"] for p in pairs))
