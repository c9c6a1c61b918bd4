"""Cells that are safe to open in a spreadsheet: no text the judge writes is evaluated as a formula.

A student's display name, file name or id is theirs to choose, and Excel, LibreOffice and Google Sheets evaluate a
cell that starts with `=`, `+`, `-` or `@` (a tab or carriage return first hides the same thing), quoted in the CSV
or not: `=HYPERLINK("http://x.example","y")` in a name becomes a live link when the instructor opens grades.csv.
As OWASP recommends for CSV injection, such a cell gets a leading `'`, which spreadsheets show as text; a number
(`-1.5`) stays a number. The workbook stores such text as a string cell instead, with no visible apostrophe.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")  # OWASP's list, and a newline (some readers strip it first)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def neutral(value: object) -> object:
    """A CSV cell that no spreadsheet evaluates: text starting with a formula character gets a leading `'`.

    A carriage return inside text becomes a newline: the writer's line ends are "\n", so it quotes a cell holding
    "\n" but not one holding a bare "\r", which a reader would take for the end of the row."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        if formula_like(value):
            return "'" + value
    return value


def formula_like(text: str) -> bool:
    """Whether a spreadsheet would read this text as a formula (the workbook then stores it as a string cell). A
    lone "-" is text everywhere, and Moodle's worksheet needs it as it is ("no grade given yet")."""
    return text.startswith(TRIGGERS) and text != "-" and not _number(text)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[object]], encoding: str = "utf-8") -> bytes:
    """A CSV of neutral cells (the header is ours; every other cell passes through neutral())."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([neutral(cell) for cell in row] for row in rows)
    return out.getvalue().encode(encoding)
