"""`python practice/judge.py ID --statement` in a terminal: every statement's tables wrap inside their cells at 80
and 120 columns, in Chinese and English, never cut with "…" and never broken inside a code span; on a terminal too
narrow for the columns (one whose widest code span does not fit its column) each table is a list, row by row
(judge/cli/statement_tables.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from markdown_it import MarkdownIt
from rich.cells import cell_len
from rich.console import Console

from judge.cli.statement import show_statement
from judge.cli.statement_tables import TableBlock, statement_blocks
from judge.problem.folders import ProblemSet
from judge.settings import Settings

SETTINGS = Settings()
PROBLEMS = [p.id for p in ProblemSet(SETTINGS.problems_dir).all()]


def _tables(markdown: str) -> list[tuple[list[str], list[str]]]:
    """Each table of the statement: the text of its cells, and its code spans."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    found: list[tuple[list[str], list[str]]] = []
    inside = False
    for token in tokens:
        if token.type == "table_open":
            found.append(([], []))
            inside = True
        elif token.type == "table_close":
            inside = False
        elif inside and token.type == "inline":
            found[-1][0].append("".join(child.content for child in token.children or []))
            found[-1][1].extend(child.content for child in token.children or [] if child.type == "code_inline")
    return found


def _rendered(block: TableBlock, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, force_terminal=False)
    console.print(block)
    return console.export_text().splitlines()


def _ink(text: str) -> Counter[str]:
    return Counter(char for char in text if not char.isspace() and char not in "─•")


def _list_ink(block: TableBlock, cells: list[str]) -> Counter[str]:
    """What a table shows as a list: its body's cells, and each header but the first as a label on every row."""
    colon = ": " if block.lang == "en" else "："
    columns = len(block.header)
    labels = "".join(f"{name}{colon}" for name in cells[1:columns]) * len(block.rows)
    return _ink("".join(cells[columns:]) + labels)


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_tables_wrap_inside_their_cells_never_cut_nor_broken_inside_code(problem_id, lang, width):
    prompt = ProblemSet(SETTINGS.problems_dir).get(problem_id).prompt(lang)
    tables = [b for b in statement_blocks(prompt, lang) if isinstance(b, TableBlock)]
    assert len(tables) == len(_tables(prompt))
    for block, (cells, code_spans) in zip(tables, _tables(prompt)):
        lines = _rendered(block, width)
        columns = block.widths(width)
        if width >= 120 or problem_id == "100":  # 100's, and every table at 120: columns; else maybe a list
            assert columns is not None, "this table fits its columns: a table, not a list"
        assert any(set(line.strip()) == {"─"} for line in lines) == (columns is not None)  # the rule under its header
        assert all(cell_len(line) <= width for line in lines), [line for line in lines if cell_len(line) > width]
        shown = _ink("".join(cells)) if columns is not None else _list_ink(block, cells)
        assert _ink("".join(lines)) == shown  # every character of every cell, none cut, no "…" added
        for span in code_spans:  # each code span whole on one line
            assert any(span in line for line in lines), (span, lines)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_whole_statement_fits_80_columns_without_an_ellipsis(lang):
    console = Console(width=80, record=True, color_system=None, force_terminal=False)
    show_statement("100", SETTINGS.model_copy(update={"lang": lang}), console)
    out = console.export_text()
    prompt = ProblemSet(SETTINGS.problems_dir).get("100").prompt(lang)
    assert out.count("…") == prompt.count("…")  # the statement's own (zh writes "……"), none added
    assert all(cell_len(line) <= 80 for line in out.splitlines())
    heading = "怎么判" if lang == "zh" else "How it is judged"
    assert heading in out and "torch.library.opcheck" in out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_too_narrow_for_columns_each_row_is_a_list_item(lang):
    prompt = ProblemSet(SETTINGS.problems_dir).get("100").prompt(lang)
    block = next(b for b in statement_blocks(prompt, lang) if isinstance(b, TableBlock))
    assert block.widths(40) is None
    lines = _rendered(block, 40)
    cells, _ = _tables(prompt)[0]
    assert not any(set(line.strip()) == {"─"} for line in lines)
    items = [line for line in lines if line.startswith("• ")]
    assert len(items) == len(block.rows) and items[0].startswith("• schema")
    assert all(cell_len(line) <= 40 for line in lines)
    assert _ink("".join(lines)) == _list_ink(block, cells)
