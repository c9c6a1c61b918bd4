"""Turn what went wrong in a case into the one line a learner reads (in the handbook's language)."""

from __future__ import annotations

import re

import pytest

from judge.checker.errors import LearnerError, Tampered, WorkerLost
from judge.checker.remote import ImportFailed


def where(display_name: str, line: int | None) -> str:
    return f"（{display_name} 第 {line} 行）" if line else ""


def import_failure(error: dict, display_name: str) -> str:
    kind, message = first_line(str(error.get("type")), 100), first_line(str(error.get("message")))
    return f"你的文件没能导入：{kind}: {message}{where(display_name, error.get('learner_line'))}"


def case_message(exc: BaseException, display_name: str) -> str:
    if isinstance(exc, LearnerError):
        kind = first_line(exc.type_name, 100)
        return f"你的代码抛出了 {kind}: {first_line(exc.message)}{where(display_name, exc.learner_line)}"
    if isinstance(exc, Tampered):
        return ("你的代码改动了判题程序所依赖的代码（torch、判题器或内置函数的绑定，或留下了未退出的 torch 模式），"
                "之后的结果都不予采信")
    if isinstance(exc, WorkerLost):
        return "你的程序在这个测试进行中结束或失去响应（见判题结果的说明）"
    if isinstance(exc, ImportFailed):
        return "你的文件没能导入，这个测试没有运行"
    if isinstance(exc, AssertionError):
        return first_line(str(exc)) or "结果与预期不符"
    if isinstance(exc, pytest.fail.Exception):  # pytest.fail("...") in a test: its text is the message
        return first_line(exc.msg or "") or "结果与预期不符"
    return f"{type(exc).__name__}: {first_line(str(exc))}"


def learner_failure(hint: str, exc: LearnerError, display_name: str) -> str:
    """A test's own hint, then what the learner's code raised and where."""
    message = _TORCH_IMPL_NOTE.sub("", exc.message)
    return f"{hint}：{first_line(exc.type_name, 100)}: {first_line(message)}{where(display_name, exc.learner_line)}"


# torch appends "(with implementation in <module ...>)" to custom-op errors: noise for a learner
_TORCH_IMPL_NOTE = re.compile(r" \(with implementation in <module [^>]*>\)")


def first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
