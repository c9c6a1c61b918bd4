"""Where a submission's registered backward returns a list, read from its source with `ast` (never run).

torch wraps whatever a `register_autograd` backward returns that is not a tuple as one value, so a backward
that returns `[grad_x, grad_weight, None]` fails with "expected 4, got 2": the learner counts values when the
fix is `(...)` for `[...]`. The exception is raised after the backward returned, so no frame of the learner's
names the line; this reader finds it, for the message only (the verdict comes from what torch raised).
"""

from __future__ import annotations

import ast

REGISTERS = frozenset({"register_autograd"})  # op.register_autograd(backward, ...), torch.library.register_autograd(
# "ns::op", backward, ...)


def list_returns(source: str) -> list[int]:
    """The lines of `return [...]` (a list display or comprehension) in the functions the source hands to
    `register_autograd`, in order; [] when there are none, or the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    backwards = _registered(tree)
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in backwards:
            lines += [ret.lineno for ret in _own_returns(node) if isinstance(ret.value, ast.List | ast.ListComp)]
    return sorted(set(lines))


def _registered(tree: ast.AST) -> set[str]:
    """The names passed as the backward: `backward=f`, else the first positional argument that is a plain name
    (the operator's name comes first in `torch.library.register_autograd("ns::op", f)`, as a string)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called not in REGISTERS:
            continue
        keyword = next((k.value for k in node.keywords if k.arg == "backward"), None)
        given = [keyword] if keyword is not None else [a for a in node.args if isinstance(a, ast.Name)][:1]
        names |= {g.id for g in given if isinstance(g, ast.Name)}
    return names


def _own_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The returns of `function` itself, not of functions or lambdas nested in it."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return found
