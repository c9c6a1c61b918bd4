"""Classes of submissions for the batch tests, built in temporary folders from the fixture problem 900 (add)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-echo"
REFERENCE = (FIXTURE / "solutions" / "reference.py").read_text(encoding="utf-8")
WRONG = (FIXTURE / "solutions" / "wrong" / "subtracts.py").read_text(encoding="utf-8")
ARTIFACTS = Path(__file__).parent / "artifacts"  # screenshots (git-ignored)


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """files: relative path -> content; returns root."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def write_zip(path: Path, files: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return path


def zip_bytes(files: dict[str, str | bytes]) -> bytes:
    """A zip of files (name -> content) in memory: a student's own zip inside a download."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return data.getvalue()


def read_grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def read_reports(out: Path) -> dict[str, dict]:
    lines = (out / "reports.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["student"]: record for record in map(json.loads, lines)}


def grades_header(out: Path) -> list[str]:
    return next(csv.reader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


@pytest.fixture
def quiet():
    """A stream for progress lines (tests read it when they care)."""
    return io.StringIO()
