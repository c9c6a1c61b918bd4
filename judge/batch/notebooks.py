"""A Jupyter notebook as the one Python file the judge runs: its code cells in order (nbformat reads it), IPython's
magics and shell lines left out, each left out named for the student's feedback."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# An IPython line that is not Python: a magic (%time, %%capture), a shell escape (!pip), an assignment from one
# (files = !ls), or help (torch.add?).
_IPYTHON = re.compile(r"^\s*(?:[%!]|\w+\s*=\s*[%!]|[\w.]+\?\??\s*$)")
# Cell magics whose body is Python all the same (the cell's first line is dropped, its body kept); any other cell
# magic (%%bash, %%html, %%javascript) makes the whole cell not Python.
_PYTHON_CELLS = {"time", "timeit", "capture", "prun", "writefile", "file"}


class NotebookError(ValueError):
    """The file is not a notebook nbformat can read: the row is rejected with this reason."""


@dataclass
class Converted:
    source: str
    cells: int  # code cells judged
    dropped: list[str] = field(default_factory=list)  # "cell 3, line 1: %matplotlib inline", for the feedback


def to_source(data: bytes, name: str) -> Converted:
    """The notebook's code cells, in order, as one Python source ("# cell N" before each, so a line number in the
    feedback can be found in the notebook); NotebookError when nbformat cannot read it."""
    try:
        import nbformat  # noqa: PLC0415 - only a class with notebooks needs it
    except ImportError:
        raise NotebookError(
            f"{name}: a notebook needs nbformat to be read (pip install 'practice-judge[grade]')"
        ) from None
    try:
        text = data.decode("utf-8-sig")
        notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        if int(notebook.get("nbformat", 0)) < 4:
            notebook = nbformat.convert(notebook, 4)
    except UnicodeDecodeError:
        raise NotebookError(f"{name}: a notebook is UTF-8 JSON; this file is not UTF-8") from None
    except Exception as exc:  # noqa: BLE001 - nbformat raises JSON, validation and its own reader errors alike
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise NotebookError(f"{name}: not a notebook Jupyter can open ({first})") from None
    parts: list[str] = []
    dropped: list[str] = []
    number = 0
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        number += 1
        parts.append(f"# cell {number}\n{_python_of(str(cell.get('source', '')), number, dropped)}")
    return Converted("\n\n".join(parts) + "\n", number, dropped)


def _python_of(source: str, number: int, dropped: list[str]) -> str:
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split(maxsplit=1)
        dropped.append(f"cell {number}, line 1: {lines[0].strip()}")
        if not magic or magic[0] not in _PYTHON_CELLS:
            dropped[-1] += " (the whole cell)"
            return "pass"
        lines = ["pass", *lines[1:]]  # the line numbers below stay those of the cell
    kept = []
    for index, line in enumerate(lines, 1):
        if _IPYTHON.match(line):
            dropped.append(f"cell {number}, line {index}: {line.strip()}")
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(f"{indent}pass  # left out: IPython")
        else:
            kept.append(line)
    return "\n".join(kept)
