"""The rules that keep a probes file honest: it decides nothing, and reads tensors only through the worker's accessors.

A probe runs in the submission's process, so whatever it computes there the submission can reach (rebind a
module global the utility looks up at call time, swap it back before the probe returns). Probes therefore send
back observations only, and the checker compares. `judge check` refuses a probes file that names one of torch's
deciding tools: opcheck and its test utilities, gradcheck and gradgradcheck, torch.testing's assertions,
allclose, isclose and equal. The comparison belongs in the problem's conftest.py (see docs/authoring.en.md).

What a probe observes must be what torch holds, not what the submission's objects say of themselves: a subclass can
override `dtype`, a plain tensor can carry its own `detach` in its instance dict, a metaclass its own `__name__`. So
a probes file reads tensors only through `judge.worker.tensors` (accessors bound before the submission runs), and
`judge check` refuses one that reads a tensor's metadata, calls a tensor method that copies or observes, or tests a
type with isinstance/type() itself (`observing_reads`).
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
    return deciding_uses(path.read_text(encoding="utf-8")) if path.is_file() else []


# Attributes a probe might read off a tensor, or a type's name: each has an accessor in judge.worker.tensors.
OBSERVED_ATTRIBUTES = frozenset(
    {
        "shape", "dtype", "device", "requires_grad", "_version", "grad", "is_leaf", "grad_fn", "layout",
        "data_ptr", "untyped_storage", "storage_offset", "stride", "size", "dim", "ndim", "numel", "is_contiguous",
        "is_meta", "is_cuda", "is_cpu", "fake_device", "_fake_device", "element_size", "nbytes",
        "backward", "detach", "clone", "contiguous", "cpu", "item", "tolist", "numpy",
        "__class__", "__name__", "__qualname__", "__dict__", "__module__",
    }
)  # fmt: skip
TYPE_TESTS = frozenset({"isinstance", "issubclass", "type"})
BUILTIN_TYPES = frozenset({"type", "object", "dict", "tuple", "list", "str", "int"})  # their own descriptors, bound


def _module_aliases(tree: ast.AST) -> set[str]:
    """Names the file binds to modules (`import torch`, `import numpy as _np`, `from triton import language as
    tl`): `torch.device` or `_np.shape` read a module, not an object of the submission's."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names if alias.name[:1].islower()}
    return names


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


RUN_NOT_READ = "RUN_NOT_READ"


def _programs(tree: ast.Module) -> list[ast.AST]:
    """The functions a probes file names in `RUN_NOT_READ = ("name", ...)`: programs the probes run (exercise 101's,
    under the learner's dispatch mode) and the checker runs again, whose results the probes read through the
    accessors. Their bodies compute; they observe nothing, so the rule passes over them."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == RUN_NOT_READ for t in node.targets):
            if isinstance(node.value, (ast.Tuple, ast.List)):
                names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in names]


def observing_reads(source: str) -> list[Finding]:
    """Every direct read of a tensor's metadata, call of an observing tensor method, and type test in a probes
    file's source (each has its accessor in judge.worker.tensors), outside the programs it names in RUN_NOT_READ."""
    tree = ast.parse(source)
    modules = _module_aliases(tree)
    skipped = {id(node) for program in _programs(tree) for node in ast.walk(program)}
    found: list[Finding] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        base = _base_name(node) if isinstance(node, ast.Attribute) else None
        if isinstance(node, ast.Attribute) and node.attr in OBSERVED_ATTRIBUTES and base not in modules | BUILTIN_TYPES:
            found.append(Finding(node.lineno, f"reads .{node.attr} directly: use judge.worker.tensors"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TYPE_TESTS:
            found.append(Finding(node.lineno, f"tests a type with {node.func.id}(): use judge.worker.tensors"))
    return sorted(set(found), key=lambda f: (f.line, f.what))


def check_observing_file(path: Path) -> list[Finding]:
    """observing_reads of a probes file (none for a file that does not exist: the file check reports that)."""
    return observing_reads(path.read_text(encoding="utf-8")) if path.is_file() else []
