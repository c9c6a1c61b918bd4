"""`judge new ID SLUG`: a new problem folder with every file `judge check` expects, ready to fill in."""

from __future__ import annotations

from pathlib import Path

from judge.errors import JudgeError
from judge.problem.folders import FOLDER

FILES = {
    "problem.toml": """id = "{id}"
slug = "{slug}"
chapter = "TODO-chapter"
difficulty = "medium"
device = "cpu"
solution_file = "{id}.py"
tags = []

[title]
zh = "TODO 中文标题"
en = "TODO English title"

[tolerances.float32]
rtol = 1.3e-6
atol = 1e-5
""",
    "prompt.zh.md": "# {id}. TODO 中文标题\n\n题目描述、签名、输入范围、检查项与本章概念的对应。\n\n本地判题：`python practice/judge.py {id}`\n",
    "prompt.en.md": "# {id}. TODO English title\n\nTask, exact signatures, input ranges, and what each check tests.\n\nJudge locally: `python practice/judge.py {id}`\n",
    "starter.py": '"""Exercise {id}: TODO."""\n\n\ndef solve(x):\n    """TODO: describe."""\n    raise NotImplementedError("TODO")\n',
    "tests/conftest.py": '"""Fixtures for exercise {id}: seeded inputs and tolerances."""\n',
    "tests/probes.py": '"""Probes for exercise {id}: run inside the worker, observe the submission, return plain data."""\n\n\ndef solve(solution, x):\n    return solution.solve(x)\n',
    "tests/test_public.py": '''"""Public tests of exercise {id}: a failure message in both languages with msg(zh, en)."""

import torch

from judge.report.feedback import msg


def test_solve_small(remote):
    x = torch.arange(4.0)
    assert torch.equal(remote.call("solve", x), x), msg("TODO 中文提示：说出错在哪里", "TODO English: say what is wrong")
''',
    "tests/test_hidden.py": '''"""Hidden tests of exercise {id}: each names what it checks (never its inputs) with a hint marker."""

import pytest
import torch

from judge.report.feedback import msg


@pytest.mark.hint("TODO 检查什么（中文）", "TODO what this checks (English)")
def test_solve_seeded(remote):
    x = torch.randn(16, generator=torch.Generator().manual_seed(0))
    assert torch.equal(remote.call("solve", x), x), msg("TODO 中文提示", "TODO English hint")
''',
    "solutions/reference.py": '"""Reference solution of exercise {id}."""\n\n\ndef solve(x):\n    return x\n',
    "solutions/valid/.gitkeep": "",
    "solutions/wrong/returns_none.py": "# expect: wrong_answer\n\n\ndef solve(x):\n    return None\n",
}


def scaffold(problems_dir: Path, problem_id: str, slug: str) -> Path:
    folder = problems_dir / f"{problem_id}-{slug}"
    if not FOLDER.match(folder.name):
        raise JudgeError(f"'{folder.name}': the id is 1-4 digits and the slug lowercase words joined by '-'")
    taken = [p.name for p in problems_dir.glob(f"{problem_id}-*")]
    if taken or folder.exists():
        raise JudgeError(f"problem {problem_id} already exists: {', '.join(taken) or folder.name}")
    for rel, text in FILES.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(id=problem_id, slug=slug), encoding="utf-8")
    return folder
