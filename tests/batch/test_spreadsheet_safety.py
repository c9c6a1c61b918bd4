"""Every CSV the judge writes is safe to open in a spreadsheet, and the workbook stores such text as text: a display
name, file name or id that starts with a formula character (OWASP's CSV injection) is never evaluated, numbers stay
numbers, and the LMS id columns still match."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from judge.batch.exports import canvas_csv, grades_csv, grades_xlsx, moodle_csv, skipped_csv
from judge.batch.rows import Row
from judge.batch.spreadsheet import TRIGGERS, csv_bytes, neutral

NASTY = [
    '=HYPERLINK("http://x.example","y")',
    "+1+1",
    "-2+3",
    "@SUM(1,2)",
    "\t=1+1",
    "\r=1+1",
]


def _cells(data: bytes, encoding: str = "utf-8") -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode(encoding), newline="")))


def _formula(cell: str) -> bool:
    return cell.startswith(TRIGGERS) and cell != "-"  # a lone "-" is text (Moodle's "no grade given yet")


def _rows() -> list[Row]:
    rows = []
    for n, name in enumerate(NASTY):
        layout = ("canvas", "moodle", "plain")[n % 3]
        rows.append(Row(student=f"{1000 + n}", verdict="accepted", name=name, source=f"{name}.py", layout=layout,
                        points=-1.5 if n == 0 else 7.0, max_points=10.0))  # fmt: skip
    return rows


@pytest.mark.parametrize("text", NASTY)
def test_a_formula_character_first_is_neutralised(text):
    assert neutral(text) == "'" + text.replace("\r", "\n")


def test_numbers_and_plain_text_stay_as_they_are():
    assert neutral("-1.5") == "-1.5" and neutral("+3") == "+3" and neutral("1e3") == "1e3"
    assert neutral("Zhang San") == "Zhang San" and neutral("a=b") == "a=b" and neutral(7) == 7


def test_every_csv_the_judge_writes_holds_no_formula():
    rows = _rows()
    outputs = {
        "grades.csv": _cells(grades_csv(rows, "en")),
        "canvas.csv": _cells(canvas_csv(rows, "Exercise 101 (42)"), "utf-8-sig"),
        "moodle.csv": _cells(moodle_csv(rows, "en")),
        "skipped.csv": _cells(skipped_csv([(f"{name}.py", "empty file") for name in NASTY])),
        "similarity.csv": _cells(csv_bytes(["student_a", "student_b", "score"], [[NASTY[0], NASTY[3], "0.950"]])),
    }
    for name, table in outputs.items():
        evaluated = [cell for row in table[1:] for cell in row if _formula(cell) and not _is_number(cell)]
        assert not evaluated, f"{name}: {evaluated}"
    grades = outputs["grades.csv"]
    header = grades[0]
    names = [row[header.index("name")] for row in grades[1:]]
    assert names == ["'" + n.replace("\r", "\n") for n in NASTY]  # the text survives, shown as text
    assert len(grades) == len(NASTY) + 1  # a carriage return in a name ends no row
    assert [row[header.index("student")] for row in grades[1:]] == [str(1000 + n) for n in range(len(NASTY))]
    assert grades[1][header.index("points")] == "-1.50"  # a negative number is still a number
    canvas = outputs["canvas.csv"]
    assert [row[1] for row in canvas[2:]] == ["1000", "1003"]  # Canvas matches on the id column, untouched
    moodle = outputs["moodle.csv"]
    assert [row[0] for row in moodle[1:]] == ["Participant 1001", "Participant 1004"]


def test_libreoffice_opens_every_csv_with_no_formula(tmp_path):
    """The CSVs opened the way an instructor opens them: LibreOffice Calc (headless) imports each with its default
    CSV options, which evaluate a cell that starts with "=", and saves it as xlsx; no cell of ours is a formula. The
    same import of a raw "=1+1" makes one, so the check can fail."""
    import subprocess

    from tests.needs import SOFFICE, need_soffice

    need_soffice()
    rows = _rows()
    files = {
        "grades.csv": grades_csv(rows, "en"),
        "canvas.csv": canvas_csv(rows, "Exercise 101 (42)"),
        "moodle.csv": moodle_csv(rows, "en"),
        "skipped.csv": skipped_csv([(f"{name}.py", "empty file") for name in NASTY]),
        "control.csv": b"name,score\n=1+1,5\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    subprocess.run(
        [SOFFICE, "--headless", f"-env:UserInstallation=file://{tmp_path / 'profile'}", "--convert-to", "xlsx",
         "--outdir", str(tmp_path / "xlsx"), *(str(tmp_path / name) for name in files)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    formulas = {}
    for name in files:
        book = openpyxl.load_workbook(tmp_path / "xlsx" / name.replace(".csv", ".xlsx"))
        formulas[name] = [c.value for row in book.active.iter_rows() for c in row if c.data_type == "f"]
    assert formulas.pop("control.csv") == ["=1+1"]  # LibreOffice does evaluate a raw formula
    assert formulas == {name: [] for name in formulas}, formulas


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_the_workbook_stores_formula_like_text_as_text_without_an_apostrophe():
    book = openpyxl.load_workbook(io.BytesIO(grades_xlsx(_rows(), "en")))
    sheet = book["grades"]
    header = [cell.value for cell in sheet[1]]
    formulas = [cell.coordinate for row in sheet.iter_rows(min_row=2) for cell in row if cell.data_type == "f"]
    assert not formulas
    names = [row[header.index("name")].value for row in sheet.iter_rows(min_row=2)]
    assert names == [n.replace("\r", "\n") for n in NASTY]  # as written (XML reads a carriage return as a newline)
    assert sheet.cell(row=2, column=header.index("points") + 1).value == -1.5  # numbers are numbers
