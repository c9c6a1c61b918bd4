"""Your own input (`judge try`, the page's Try panel): what a problem lets a learner call (problems/<id>/try.toml)
and the learner's input, read without running anything: a small TOML form for shapes, dtypes and values, or a
Python expression per argument, which only a sandboxed worker evaluates.

The input becomes a Python module (`builder_source`) that a worker of its own imports, with no learner file and no
reference beside it; the values it builds come back as plain data and are what both the learner's operator and the
reference are called with (judge.grading.trying).
"""

from __future__ import annotations

import ast
import math
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from judge.errors import BadSubmission, JudgeError, ProblemInvalid
from judge.problem.folders import Problem, ProblemFile
from judge.report.catalog import say

FILE = "try.toml"
MAX_INPUT_BYTES = 16 << 10  # an input is a few lines; a pasted data set is not one
MAX_ELEMENTS = 1 << 16  # per tensor: small enough to print, to compare, and to cross the channel at once
MAX_EXPR = 2000  # characters of one expression
INPUT_NAME = "try-input.py"  # the builder's file name, as a traceback in the learner's input shows it
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
FLOATS = ("float32", "float64", "float16", "bfloat16")
Fill = Literal["randn", "rand", "zeros", "ones", "arange", "randint", "full"]


class NoTry(JudgeError):
    """The exercise has no try.toml: nothing a learner's own input may call."""

    http_status = 404


class BadInput(BadSubmission):
    """The learner's input cannot be read (422, in both languages): nothing ran."""


class TryOp(BaseModel):
    """One operator a learner may try: the eager probe that calls it, its arguments in order, an example input."""

    model_config = ConfigDict(extra="forbid")

    probe: str = Field(pattern=r"^[a-z_][a-z0-9_]*$", description="A probe of tests/probes.py.")
    args: list[str] = Field(min_length=1, description="The probe's arguments after `solution`, in order.")
    example: str = Field(description="An input in the learner's form, shown as the starting point.")


class TryOps(BaseModel):
    ops: dict[str, TryOp] = Field(default_factory=dict)


class TensorSpec(BaseModel):
    """One tensor argument: `values` written out, or `shape` with a `fill`, or a Python `expr`; and a dtype."""

    model_config = ConfigDict(extra="forbid")

    shape: list[int] | None = None
    dtype: Literal[DTYPES] | None = None  # type: ignore[valid-type]
    fill: Fill | None = None
    seed: int = Field(0, ge=0, le=2**63 - 1)
    low: int = Field(0, ge=-(2**31), le=2**31)
    high: int = Field(2, ge=-(2**31), le=2**31)
    value: float | int | bool | None = None
    values: list[Any] | None = None
    expr: str | None = Field(None, max_length=MAX_EXPR)

    @model_validator(mode="after")
    def _one_way(self) -> TensorSpec:
        ways = [self.values is not None, self.fill is not None, self.expr is not None]
        if sum(ways) != 1:
            raise ValueError("give exactly one of values, fill (with shape) or expr")
        if self.fill is not None:
            if self.shape is None:
                raise ValueError("fill needs a shape")
            if any(size < 0 for size in self.shape) or len(self.shape) > 8:
                raise ValueError("a shape is at most 8 sizes, none negative")
            if math.prod(self.shape) > MAX_ELEMENTS:
                raise ValueError(f"at most {MAX_ELEMENTS} elements per tensor")
            if self.fill in ("randn", "rand") and (self.dtype or "float32") not in FLOATS:
                raise ValueError(f"fill = {self.fill!r} needs a floating dtype")
            if self.fill == "full" and self.value is None:
                raise ValueError("fill = 'full' needs a value")
            if self.fill == "randint" and self.high <= self.low:
                raise ValueError("randint needs low < high")
        if self.values is not None and _count(self.values) > MAX_ELEMENTS:
            raise ValueError(f"at most {MAX_ELEMENTS} elements per tensor")
        return self

    def code(self) -> str:
        """The Python expression that builds this tensor in the sandbox."""
        dtype = f"torch.{self.dtype or 'float32'}"
        if self.expr is not None:
            return f"(\n{self.expr}\n)" + (f".to({dtype})" if self.dtype else "")
        if self.values is not None:
            return f"torch.tensor({self.values!r}, dtype={dtype})" if self.dtype else f"torch.tensor({self.values!r})"
        shape = tuple(self.shape or ())
        gen = f"generator=_gen({self.seed})"
        return {
            "randn": f"torch.randn({shape}, {gen}, dtype={dtype})",
            "rand": f"torch.rand({shape}, {gen}, dtype={dtype})",
            "zeros": f"torch.zeros({shape}, dtype={dtype})",
            "ones": f"torch.ones({shape}, dtype={dtype})",
            "arange": f"torch.arange({math.prod(shape)}).reshape({shape}).to({dtype})",
            "randint": f"torch.randint({self.low}, {self.high}, {shape}, {gen}).to({dtype})",
            "full": f"torch.full({shape}, {self.value!r}, dtype={dtype})",
        }[self.fill or "zeros"]


def _count(values: Any) -> int:
    return sum(_count(v) for v in values) if isinstance(values, list) else 1


Scalar = bool | int | float | str


class TryInput(BaseModel):
    """The learner's input: which operator, and each of its arguments."""

    model_config = ConfigDict(extra="forbid")

    op: str
    args: dict[str, TensorSpec | Scalar | list[Scalar]] = Field(default_factory=dict)


class ProblemTry(ProblemFile):
    """A problem's try.toml, read once; an absent file means the exercise offers no Try."""

    FILE = FILE

    @cached_property
    def ops(self) -> dict[str, TryOp]:
        if not self.path.is_file():
            return {}
        try:
            data = tomllib.loads(self.path.read_text(encoding="utf-8"))
            return TryOps.model_validate(data).ops
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValidationError) as exc:
            raise ProblemInvalid(f"{self.problem.root.name}/{FILE}: {exc}") from exc

    def require(self) -> dict[str, TryOp]:
        """The ops, or NoTry (in both languages) for an exercise without any."""
        if not self.ops:
            raise NoTry(say("try.none", id=self.problem.id))
        return self.ops


def parse_input(text: str, ops: dict[str, TryOp]) -> tuple[str, TryOp, TryInput]:
    """The learner's input read and checked, or BadInput saying what is wrong and where, in both languages."""
    if len(text.encode("utf-8", "replace")) > MAX_INPUT_BYTES:
        raise BadInput(say("try.too_big", limit=MAX_INPUT_BYTES))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(say("try.not_toml", why=str(exc))) from None
    try:
        parsed = TryInput.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"] if not str(part).startswith(("TensorSpec", "list[")))
        raise BadInput(say("try.bad_field", where=where or "op", why=error["msg"])) from None
    op = ops.get(parsed.op)
    if op is None:
        raise BadInput(say("try.unknown_op", op=parsed.op, known=", ".join(ops)))
    missing = [name for name in op.args if name not in parsed.args]
    extra = [name for name in parsed.args if name not in op.args]
    if missing or extra:
        raise BadInput(say("try.args", op=parsed.op, args=", ".join(op.args), missing=", ".join(missing + extra)))
    for name, value in parsed.args.items():
        if isinstance(value, TensorSpec) and value.expr is not None:
            try:
                ast.parse(value.expr, mode="eval")
            except SyntaxError as exc:
                raise BadInput(say("try.bad_expr", name=name, why=exc.msg)) from None
    return parsed.op, op, parsed


def builder_source(op: TryOp, parsed: TryInput) -> tuple[str, dict[int, str]]:
    """The module a sandboxed worker imports to build the input (`ARGS`, by name in the op's order), and which
    argument each of its lines builds (to name the argument whose expression raised)."""
    lines = [
        "# Built by the judge from your input (judge try, the page's Try panel).",
        "import math",
        "import torch",
        "",
        "",
        "def _gen(seed):",
        "    return torch.Generator().manual_seed(seed)",
        "",
        "",
        "ARGS = {}",
    ]
    owners: dict[int, str] = {}
    for name in op.args:
        value = parsed.args[name]
        code = value.code() if isinstance(value, TensorSpec) else repr(value)
        first = len(lines) + 1
        lines.extend(f"ARGS[{name!r}] = {code}".splitlines())
        owners.update({n: name for n in range(first, len(lines) + 1)})
    return "\n".join(lines) + "\n", owners


def example_problems(problem: Problem) -> list[str]:
    """What is wrong with a problem's try.toml, for `judge check`: it parses, each probe exists in probes.py with
    those arguments, each example reads as an input of its own op."""
    try:
        ops = ProblemTry(problem).ops
    except ProblemInvalid as exc:
        return [exc.message]
    probes = _probe_arguments(problem.probes_path) if ops else {}
    gaps = []
    for name, op in ops.items():
        if probes.get(op.probe) is None:
            gaps.append(f"{name}: no probe {op.probe} in tests/probes.py")
        elif probes[op.probe][: len(op.args)] != op.args:
            gaps.append(f"{name}: {op.probe} takes {probes[op.probe]}, not {op.args}")
        try:
            used, _, _ = parse_input(op.example, ops)
            if used != name:
                gaps.append(f"{name}: its example tries {used}")
        except BadInput as exc:
            gaps.append(f"{name}: its example does not read: {exc.message}")
    return gaps


def _probe_arguments(path: Path) -> dict[str, list[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: [arg.arg for arg in node.args.args[1:]]
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    }
