"""The rule that keeps every decision in the checker: a probes file may not import or call a deciding utility.

A probe runs in the submission's process, so whatever it computes there the submission can reach (rebind a
module global the utility looks up at call time, swap it back before the probe returns). Probes therefore send
back observations only, and the checker compares. `judge check` refuses a probes file that names one of torch's
deciding tools: opcheck and its test utilities, gradcheck and gradgradcheck, torch.testing's assertions,
allclose, isclose and equal. The comparison belongs in the problem's conftest.py (see docs/authoring.en.md).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

# Names whose import, attribute access or call decides pass or fail. Matched on the last part of a dotted name
# (`torch.library.opcheck`, `from torch.library import opcheck as _o`, `t.equal(u)`) and on the modules that hold
# only such tools.
DECIDING_NAMES = frozenset(
    {
        "opcheck",
        "gradcheck",
        "gradgradcheck",
        "GradcheckError",
        "assert_close",
        "assert_allclose",
        "allclose",
        "isclose",
        "equal",
        "fake_check",
        "autograd_registration_check",
        "aot_autograd_check",
        "safe_schema_check",
        "SchemaCheckMode",
        "CrossRefFakeMode",
    }
)
DECIDING_MODULES = ("torch.testing", "torch.autograd.gradcheck", "torch._subclasses.schema_check_mode")


@dataclass(frozen=True)
class Finding:
    line: int
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _deciding_module(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in DECIDING_MODULES)


def deciding_uses(source: str) -> list[Finding]:
    """Every import of, reference to or call of a deciding utility in a probes file's source."""
    found: list[Finding] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _deciding_module(alias.name) or alias.name.rsplit(".", 1)[-1] in DECIDING_NAMES:
                    found.append(Finding(node.lineno, f"imports {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if _deciding_module(module) or alias.name in DECIDING_NAMES:
                    found.append(Finding(node.lineno, f"imports {alias.name} from {module}"))
        elif isinstance(node, ast.Attribute) and node.attr in DECIDING_NAMES:
            found.append(Finding(node.lineno, f"uses {_dotted(node) or node.attr}"))
        elif isinstance(node, ast.Attribute) and _deciding_module(_dotted(node)):
            found.append(Finding(node.lineno, f"uses {_dotted(node)}"))
        elif isinstance(node, ast.Name) and node.id in DECIDING_NAMES and isinstance(node.ctx, ast.Load):
            found.append(Finding(node.lineno, f"uses {node.id}"))
    return sorted(set(found), key=lambda f: (f.line, f.what))


def check_probes_file(path: Path) -> list[Finding]:
    """deciding_uses of a probes file (none for a file that does not exist: the file check reports that)."""
    if not path.is_file():
        return []
    return deciding_uses(path.read_text(encoding="utf-8"))
