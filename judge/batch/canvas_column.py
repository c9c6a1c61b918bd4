"""Which column of the instructor's Canvas gradebook canvas.csv fills: Canvas matches an imported column by its
exact name, "Assignment Name (assignment id)" in its own export, and offers to create a new assignment otherwise."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from judge.errors import JudgeError

# A gradebook export's columns before and after the assignments (Canvas's own names): never an assignment.
NOT_ASSIGNMENTS = {"student", "id", "sis user id", "sis login id", "integration id", "section", "root account"}
_ASSIGNMENT = re.compile(r"^(?P<name>.+) \((?P<id>\d+)\)$")


def assignment_columns(gradebook: Path) -> list[str]:
    """The assignment columns ("Name (12345)") of a Canvas gradebook export's header."""
    text = gradebook.read_text(encoding="utf-8-sig")
    header = next(csv.reader(io.StringIO(text, newline="")), [])
    return [c for c in header if c.strip().lower() not in NOT_ASSIGNMENTS and _ASSIGNMENT.match(c.strip())]


def column_from_gradebook(gradebook: Path, problem_id: str, titles: list[str]) -> str:
    """The one assignment column that names this exercise (its number, or its title in either language); refused,
    with the candidates listed, when none or several do."""
    columns = assignment_columns(gradebook)
    wanted = [t.lower() for t in titles if t]

    def names_it(column: str) -> bool:
        match = _ASSIGNMENT.match(column.strip())
        name = (match["name"] if match else column).lower()
        return bool(re.search(rf"(?<!\d){re.escape(problem_id)}(?!\d)", name)) or any(t in name for t in wanted)

    found = [c for c in columns if names_it(c)]
    if len(found) == 1:
        return found[0]
    listed = ", ".join(repr(c) for c in (found or columns)[:8]) or "none"
    why = "several columns name it" if found else "no column names it"
    raise JudgeError(
        f"--gradebook {gradebook}: {why} (exercise {problem_id}); its assignment columns: {listed}. "
        'Give the column with --lms-column "Name (id)"'
    )


def matching_note(column: str) -> str:
    """How Canvas will match canvas.csv's column when neither --lms-column nor --gradebook said which it is."""
    return (
        f"canvas.csv's grade column is {column!r}: Canvas matches it only to an assignment of exactly that name, "
        'else it offers to create a new one; give --lms-column "Name (id)" (as in Canvas\'s gradebook export) or '
        "--gradebook FILE (that export) to fill your assignment's column"
    )


def gradebook_students(gradebook: Path) -> dict[str, list[str]]:
    """A Canvas user id -> [Student, SIS User ID, SIS Login ID, Section] as the gradebook export writes them, so that
    canvas.csv names each student as Canvas does ("Alvarez, Maria"), not as the download's file names do."""
    text = gradebook.read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    out: dict[str, list[str]] = {}
    for row in rows:
        cells = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        user = cells.get("id", "")
        if user.isdigit():  # the "Points Possible" and muted rows carry no user id
            out[user] = [cells.get(c, "") for c in ("student", "sis user id", "sis login id", "section")]
    return out
