"""Write every output of a batch into DIR, each file atomically, all from the same rows (a partial run stays whole)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from judge.batch.cache import write_atomic
from judge.batch.classreport import render_class_report
from judge.batch.exports import grades_csv, gradescope_results, junit_xml, reports_jsonl
from judge.batch.feedback import feedback_markdown
from judge.batch.rows import Row
from judge.batch.similarity import Pair, similar_pairs, similar_to

FILES = ("grades.csv", "reports.jsonl", "junit.xml", "similarity.csv", "class-report.html")


def write_outputs(out: Path, rows: list[Row], sources: dict[str, str], problem, lang: str) -> list[Pair]:
    """grades.csv, reports.jsonl, feedback/<student>.md, gradescope/<student>/results.json, junit.xml,
    similarity.csv, class-report.html. Returns the near-identical pairs."""
    rows = sorted(rows, key=lambda r: r.student)
    judged = {r.student for r in rows if r.report is not None}  # rejected files (10 MB, binary) are not compared
    starter = problem.starter_path.read_text(encoding="utf-8") if problem.starter_path.exists() else ""
    pairs = similar_pairs({s: src for s, src in sources.items() if s in judged}, starter)
    near = similar_to(pairs)
    for row in rows:
        row.similar_to = near.get(row.student, [])
    _write_per_student(out, rows, problem.id, lang)
    write_atomic(out / "similarity.csv", _similarity_csv(pairs))
    write_atomic(out / "junit.xml", junit_xml(rows, problem.id))
    write_atomic(out / "reports.jsonl", reports_jsonl(rows, lang))
    write_atomic(out / "class-report.html", render_class_report(rows, pairs, problem, lang).encode("utf-8"))
    write_atomic(out / "grades.csv", grades_csv(rows, lang))  # last: its presence says the rest is written
    return pairs


def _write_per_student(out: Path, rows: list[Row], problem_id: str, lang: str) -> None:
    present = {r.student for r in rows}
    for row in rows:
        write_atomic(out / "feedback" / f"{row.student}.md", feedback_markdown(row, problem_id, lang).encode("utf-8"))
        results = json.dumps(gradescope_results(row, lang), ensure_ascii=False, indent=1)
        write_atomic(out / "gradescope" / row.student / "results.json", results.encode("utf-8"))
    for stale in (out / "feedback").glob("*.md"):  # from an earlier run of other submissions
        if stale.stem not in present:
            stale.unlink()
    for stale in (out / "gradescope").glob("*/results.json"):
        if stale.parent.name not in present:
            stale.unlink()
            try:
                stale.parent.rmdir()
            except OSError:
                pass  # the folder holds something else of the instructor's: leave it


def _similarity_csv(pairs: list[Pair]) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["student_a", "student_b", "score"])
    writer.writerows([p.a, p.b, f"{p.score:.3f}"] for p in pairs)
    return text.getvalue().encode("utf-8")
