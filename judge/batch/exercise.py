"""What batch grading knows of an exercise's code: its operators (from the starter), its untouched starter."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from judge.problem.folders import Problem

_OP = re.compile(r"\bex\d+::(\w+)")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Exercise:
    """solution_file: the name the statement gives the file; operators: the names the learner must define."""

    solution_file: str
    starter: str = ""
    operators: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, problem: Problem) -> Exercise:
        path = problem.starter_path
        starter = path.read_text(encoding="utf-8") if path.exists() else ""
        return cls(problem.meta.solution_file, starter, operators_of(starter))

    def defines_operators(self, source: str) -> bool:
        """Whether the source defines (or registers) at least one of the exercise's operators, docstrings aside."""
        if not self.operators:
            return True
        return bool(self.operators & _defined(source))

    def unchanged(self, source: str) -> bool:
        """The starter with nothing of substance changed (comments, docstrings, layout aside), or no operator
        of the exercise defined at all: the work was not done."""
        return self.not_done(source) is not None

    def not_done(self, source: str) -> str | None:
        """Why the work was not done: "starter" (the starter, nothing of substance changed), "none" (none of the
        exercise's operators defined: another file, or one that never got that far), or None."""
        if not self.starter.strip():
            return None
        normal = _normalised(source)
        if normal is not None and normal == _normalised(self.starter):
            return "starter"
        return None if self.defines_operators(source) else "none"


def operators_of(starter: str) -> frozenset[str]:
    """The operators a starter names (ex104::free_slots -> free_slots), else its top-level functions and classes."""
    ops = set(_OP.findall(starter))
    if ops:
        return frozenset(ops)
    try:
        tree = ast.parse(starter)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )


def _defined(source: str) -> set[str]:
    """Names a source defines at any level, and the words of its strings (a schema names its op), docstrings aside."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(_WORD.findall(source))  # it will not import anyway; judge what the text mentions
    _strip_docstrings(tree)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.update(_WORD.findall(node.value))
    return names


def _normalised(source: str) -> str | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return ast.dump(_strip_docstrings(tree))


def _strip_docstrings(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            first = body[0] if body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree
