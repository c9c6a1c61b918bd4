"""Notebooks: a .ipynb, alone or in a zip, is judged from its code cells in order (nbformat reads it), IPython's
magics and shell lines left out and named in the feedback; one that does not parse is a clear `rejected`."""

from __future__ import annotations

import nbformat
import pytest

from judge.batch.grade import EXIT_OK, grade_class
from judge.batch.inputs import scan
from judge.batch.notebooks import NotebookError, to_source
from tests.batch.conftest import REFERENCE, WRONG, read_grades, write_tree, zip_bytes
from tests.batch.test_lms_layouts import EXERCISE


def notebook(*cells: str, markdown: str = "# Exercise 900\nMy notes.") -> str:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell(markdown), *(nbformat.v4.new_code_cell(c) for c in cells)]
    book.cells[1].outputs = [nbformat.v4.new_output("stream", text="outputs are not code\n")]
    return nbformat.writes(book)


SOLUTION = notebook(
    "%matplotlib inline\nimport torch\n!pip install --quiet numpy",
    REFERENCE,
    "%%bash\nls -l",
    "files = !ls\nx = torch.ones(2)\nif x.sum() > 0:\n    %time add(x, x)\n",
)


def test_code_cells_in_order_magics_and_shell_left_out_and_named():
    converted = to_source(SOLUTION.encode(), "900.ipynb")
    assert converted.cells == 4
    compile(converted.source, "900.ipynb", "exec")  # what is judged is Python
    assert converted.source.index("import torch") < converted.source.index("def add")
    assert "outputs are not code" not in converted.source and "My notes" not in converted.source
    assert converted.dropped == [
        "cell 1, line 1: %matplotlib inline",
        "cell 1, line 3: !pip install --quiet numpy",
        "cell 3, line 1: %%bash (the whole cell)",
        "cell 4, line 1: files = !ls",
        "cell 4, line 4: %time add(x, x)",
    ]
    old = nbformat.v4.new_notebook()
    old.cells = [nbformat.v4.new_code_cell(REFERENCE)]
    v3 = nbformat.writes(old, version=3)
    assert '"nbformat": 3' in v3 and '"worksheets"' in v3
    assert "def add" in to_source(v3.encode(), "old.ipynb").source  # an nbformat 3 notebook too
    for broken in (b"{not json", b'{"cells": 3}', b"\xff\xfe"):
        with pytest.raises(NotebookError, match="900.ipynb: "):
            to_source(broken, "900.ipynb")


def test_which_file_a_folder_or_zip_gives(tmp_path):
    write_tree(
        tmp_path,
        {
            "alice.ipynb": SOLUTION,
            "bob.zip": zip_bytes({"hw/900.ipynb": SOLUTION, "hw/scratch.ipynb": notebook("x = 1")}),
            "carol.ipynb": "{not json at all",
            "dave/900.py": REFERENCE,
            "dave/900.ipynb": notebook(WRONG),  # the .py named like the exercise wins over a notebook
            "erin/work.ipynb": SOLUTION,
        },
    )
    entries = {e.student: e for e in scan(tmp_path, EXERCISE).entries}
    assert b"def add" in entries["alice"].data and entries["alice"].origin == "alice.ipynb"
    assert entries["bob"].origin == "bob.zip/hw/900.ipynb"
    assert any("left out bob.zip/hw/scratch.ipynb: another file" in n for n in entries["bob"].notes)
    assert entries["carol"].data is None and "not a notebook Jupyter can open" in entries["carol"].reason
    assert entries["dave"].origin == "dave/900.py"
    assert entries["erin"].origin == "erin/work.ipynb" and b"def add" in entries["erin"].data


def test_a_class_of_notebooks_is_judged_and_the_feedback_says_what_was_left_out(
    tmp_path, fixture_judge, fixture_settings
):
    write_tree(tmp_path / "class", {"alice.ipynb": SOLUTION, "carol.ipynb": "{not json", "notes.txt": "x"})
    out = tmp_path / "out"
    status = grade_class(
        "900", tmp_path / "class", out, fixture_settings, jobs=2, lang="en", judge=fixture_judge,
        stream=open(tmp_path / "log", "w"),
    )  # fmt: skip
    assert status == EXIT_OK
    rows = read_grades(out)
    assert rows["alice"]["verdict"] == "accepted" and rows["alice"]["source"] == "alice.ipynb"
    assert "IPython lines left out" in rows["alice"]["note"]
    assert rows["carol"]["verdict"] == "rejected" and "not a notebook Jupyter can open" in rows["carol"]["note"]
    feedback = (out / "feedback" / "alice.md").read_text(encoding="utf-8")
    assert "Your notebook was judged from its 4 code cells, in order" in feedback
    assert "%matplotlib inline" in feedback and "IPython magics and shell commands do not run" in feedback
    assert "not a notebook Jupyter can open" in (out / "feedback" / "carol.md").read_text(encoding="utf-8")


def test_the_readme_says_what_each_kind_of_file_becomes():
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "judge" / "batch" / "README.md").read_text(encoding="utf-8")
    assert "`.ipynb`" in readme and "code cells" in readme and "skipped.csv" in readme
    assert "no .py file in the folder" not in readme
