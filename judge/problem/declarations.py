"""Operator declarations read from a submission's source with `ast` (never run): the checker's floor for them.

The worker reports what the dispatcher holds; a submission that forged that report would still have to write
its declaration somewhere. Where the source gives it as a literal (`custom_op("ns::op", mutates_args=(...))`,
`triton_op(...)`, `Library.define("op(Tensor(a!) x) -> ()")`, `torch.library.define("ns::op", "(...) -> ...")`
or `torch.library.define(lib, "op(...) -> ...")`), the literal must agree with the dispatcher, or the case
fails: a forger must write the right declaration, which is the lesson itself.

The declaring functions are found under any name the source binds them to: `from torch.library import
custom_op as co`, `co = torch.library.custom_op`, `f = getattr(torch.library, "custom_op")`, `d = lib.define`,
chains and tuples of these (module-wide, without data flow).

A declaration that is computed (a name, a call, an f-string) rejects nothing; it is only flagged for
instructors (`computed`, and `computed-declaration` in judge.flags). The floor is fail-safe: an operator the
dispatcher reports that no literal declares (built by `exec`, a computed `getattr`, C++, a route this reader
does not know, or `mutates_args="unknown"`, which says nothing precise) is recorded in `unread` when a test
holds it to the dispatcher (`check`); the checker reports it and the judgement is flagged
`computed-declaration` (judge.checker.declared). It is never skipped silently.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from judge.report import feedback

CUSTOM_OPS = ("custom_op", "triton_op")  # (name, fn=None, /, *, mutates_args, schema=None, ...)
REGISTERS = ("register_fake", "impl_abstract", "_register_fake")
_TARGET = {"register_fake": "op", "impl_abstract": "qualname", "_register_fake": "op_name"}  # the keyword of arg 0
DECLARERS = frozenset({*CUSTOM_OPS, "define", "Library", *REGISTERS})


@dataclass(frozen=True)
class Declaration:
    """One literal declaration: the arguments it says the operator writes, and where it is."""

    qualified: str  # "ns::name"; "?::name" when the library's namespace is not a literal
    writes: frozenset[str]
    line: int
    how: str  # "mutates_args" or "schema"


@dataclass
class Declarations:
    literal: list[Declaration] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)  # "line N: <what>" for each declaration not a literal
    fakes: set[str] = field(default_factory=set)  # qualified names (or "?::name") a fake is registered for
    unread: set[str] = field(default_factory=set)  # operators `check` was asked about that no literal declares

    def of(self, qualified: str) -> list[Declaration]:
        name = qualified.partition("::")[2]
        return [d for d in self.literal if d.qualified in (qualified, f"?::{name}")]

    def check(self, qualified: str, written: set[str] | frozenset[str]) -> None:
        """Fail (AssertionError, both languages) if a literal declaration of `qualified` disagrees with the
        arguments the dispatcher reports as written. No literal declaration: nothing to hold it to, so the
        operator is recorded in `unread`, which the checker reports as a computed declaration (flagged)."""
        found = self.of(qualified)
        if not found:
            self.unread.add(qualified)
        for declared in found:
            if declared.writes != frozenset(written):
                said, seen = _names(declared.writes), _names(written)
                raise AssertionError(
                    feedback.said(
                        "declarations.mismatch", line=declared.line, qualified=qualified, said=said,
                        how=declared.how, seen=seen,
                    )
                )  # fmt: skip

    def has_fake(self, qualified: str) -> bool | None:
        """Whether the source registers a fake for `qualified` (None: a registration it cannot name)."""
        name = qualified.partition("::")[2]
        if qualified in self.fakes or f"?::{name}" in self.fakes:
            return True
        return None if any("fake" in what for what in self.computed) else False


def _names(names: set[str] | frozenset[str]) -> str:
    return "(" + ", ".join(sorted(names)) + ")" if names else "()"


@dataclass(frozen=True)
class _Bound:
    """A declaring function as the source reaches it: which one, and the object it was read from (`lib` in
    `lib.define`, `kv_write` in `kv_write.register_fake`; None for a bare or imported name)."""

    what: str
    owner: ast.expr | None = None


class _Names:
    """The Python names the source binds to declaring functions, anywhere in the file (no scopes, no data flow:
    a name bound to one anywhere counts everywhere; what this misses, the fail-safe of `check` catches)."""

    def __init__(self, tree: ast.AST):
        self.bound: dict[str, _Bound] = {}
        pairs: list[tuple[str, ast.expr]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name in DECLARERS:
                        self.bound[alias.asname or alias.name] = _Bound(alias.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs += _pairs(target, node.value)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                pairs += _pairs(node.target, node.value)
        for _ in range(len(pairs) + 1):  # chains (a = custom_op; co = a) settle in at most one round per binding
            changed = False
            for name, value in pairs:
                bound = self.resolve(value)
                if bound is not None and self.bound.get(name) != bound:
                    self.bound[name], changed = bound, True
            if not changed:
                break

    def resolve(self, expr: ast.expr) -> _Bound | None:
        if isinstance(expr, ast.Name):
            return self.bound.get(expr.id) or (_Bound(expr.id) if expr.id in DECLARERS else None)
        if isinstance(expr, ast.Attribute):
            return _Bound(expr.attr, expr.value) if expr.attr in DECLARERS else None
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "getattr":
            attr = _text(expr.args[1]) if len(expr.args) >= 2 else None
            return _Bound(attr, expr.args[0]) if attr in DECLARERS else None
        return None

    def called(self, call: ast.Call) -> _Bound | None:
        return self.resolve(call.func)


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, value) for `name = value` and, element by element, `a, b = x, y`."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) == len(value.elts):
            return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
    return []


def read(source: str) -> Declarations:
    """The declarations in `source`; an unparsable file has none (the import reports the syntax error)."""
    found = Declarations()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return found
    names = _Names(tree)
    namespaces = _library_namespaces(tree, names)
    ops: dict[int, str | None] = {}  # id of each custom_op(...) call -> the operator it declares
    for node in ast.walk(tree):
        bound = names.called(node) if isinstance(node, ast.Call) else None
        if bound is not None and isinstance(node, ast.Call):
            if bound.what in CUSTOM_OPS:
                ops[id(node)] = _custom_op(node, bound.what, found)
            elif bound.what == "define":
                _define(node, bound, namespaces, found)
    op_names = _op_names(tree, ops)  # the Python name a custom_op is bound to -> its qualified name
    for node in ast.walk(tree):
        bound = names.called(node) if isinstance(node, ast.Call) else None
        if bound is not None and isinstance(node, ast.Call) and bound.what in REGISTERS:
            _fake(node, bound, namespaces, op_names, found)
    for decorator in _decorators(tree):  # @kv_write.register_fake (no call)
        if isinstance(decorator, ast.Attribute) and decorator.attr in REGISTERS:
            owner = decorator.value
            if isinstance(owner, ast.Name) and owner.id in op_names:
                found.fakes.add(op_names[owner.id])
    return found


def _op_names(tree: ast.AST, ops: dict[int, str | None]) -> dict[str, str]:
    """`@custom_op(...) def f`, `f = custom_op(..., fn, ...)`, `f = custom_op(...)(fn)`, `g = f` -> {"f": op}."""
    op_names: dict[str, str] = {}

    def op_of(expr: ast.expr) -> str | None:
        if isinstance(expr, ast.Call):
            inner = expr.func if isinstance(expr.func, ast.Call) else expr
            return ops.get(id(inner)) or ops.get(id(expr))
        return op_names.get(expr.id) if isinstance(expr, ast.Name) else None

    for _ in range(2):  # a second round binds the handles assigned from handles (g = f)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    qualified = op_of(decorator)
                    if qualified:
                        op_names[node.name] = qualified
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for name, value in _pairs(target, node.value):
                        qualified = op_of(value)
                        if qualified:
                            op_names[name] = qualified
    return op_names


def _decorators(tree: ast.AST) -> list[ast.expr]:
    functions = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return [d for n in functions for d in n.decorator_list]


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    return positional[position] if len(positional) > position and len(positional) == len(call.args) else None


def _custom_op(call: ast.Call, what: str, found: Declarations) -> str | None:
    qualified = _text(_argument(call, 0, "name"))
    if qualified is None or "::" not in qualified:
        found.computed.append(f"line {call.lineno}: {what} with a name that is not a literal")
        return None
    value = _argument(call, 99, "mutates_args")
    if value is None and not any(kw.arg is None for kw in call.keywords):
        return qualified  # no mutates_args at all (torch refuses that at import): there is nothing to compare
    if _text(value) == "unknown":
        return qualified  # a literal too, which declares nothing precise: `check` records the operator as unread
    writes, how = _literal_names(value), "mutates_args"
    schema = _text(_argument(call, 99, "schema"))
    if writes is None and schema is not None and "(" in schema:  # torch holds mutates_args to the schema
        writes, how = written_in(schema), "schema"
    if writes is None:
        found.computed.append(f"line {call.lineno}: mutates_args of {qualified} is not a literal")
    else:
        found.literal.append(Declaration(qualified, writes, call.lineno, how))
    return qualified


def _literal_names(value: ast.expr | None) -> frozenset[str] | None:
    """mutates_args=("a", "b") / ["a"] / {"a"} / () as names; None when it is anything else ("unknown" too:
    the dispatcher then marks every tensor argument, which only the schema can say)."""
    if value is None:
        return None
    try:
        literal = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(literal, tuple | list | set | frozenset) and all(type(item) is str for item in literal):
        return frozenset(literal)
    return None


def _library_namespaces(tree: ast.AST, names: _Names) -> dict[str, str]:
    """`lib = torch.library.Library("ns", "DEF")` (or `L("ns", ...)` for any alias of it) -> {"lib": "ns"}
    (literal namespaces only; "?" otherwise)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name, value in _pairs(target, node.value):
                    bound = names.called(value) if isinstance(value, ast.Call) else None
                    if bound is not None and bound.what == "Library" and isinstance(value, ast.Call):
                        found[name] = _text(_argument(value, 0, "ns")) or "?"
    return found


def _namespace(owner: ast.expr | None, namespaces: dict[str, str]) -> str:
    return namespaces.get(owner.id, "?") if isinstance(owner, ast.Name) else "?"


def _define(call: ast.Call, bound: _Bound, namespaces: dict[str, str], found: Declarations) -> None:
    """lib.define("op(...) -> ..."), torch.library.define("ns::op", "(...) -> ..."), torch.library.define(lib,
    "op(...) -> ...")."""
    first, second = _argument(call, 0, "qualname"), _argument(call, 1, "schema")
    qualname, schema = _text(first), _text(second)
    if qualname is not None and "::" in qualname and "(" not in qualname and second is not None:
        qualified = qualname.split(".", 1)[0]
        if schema is None:
            found.computed.append(f"line {call.lineno}: the schema of {qualified} is not a literal")
        else:
            found.literal.append(Declaration(qualified, written_in(schema), call.lineno, "schema"))
        return
    if qualname is None and schema is not None and not schema.lstrip().startswith("("):
        owner: ast.expr | None = first  # torch.library.define(lib, "op(...) -> ...")
    else:
        owner, schema = bound.owner, qualname if qualname is not None else _text(_argument(call, 0, "schema"))
    if schema is None or "(" not in schema:
        found.computed.append(f"line {call.lineno}: a schema that is not a literal")
        return
    name = schema.split("(", 1)[0].strip().split(".", 1)[0]
    qualified = name if "::" in name else f"{_namespace(owner, namespaces)}::{name}"
    found.literal.append(Declaration(qualified, written_in(schema), call.lineno, "schema"))


_PARAMETER = re.compile(r"^\s*(?P<type>.+?)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:=.*)?$")


def written_in(schema: str) -> frozenset[str]:
    """The parameters a schema's alias annotations mark as written: `Tensor(a!) k_cache` -> {"k_cache"}."""
    inside = schema[schema.find("(") + 1 :]
    depth, current, params = 0, "", []
    for ch in inside:
        if ch == ")" and depth == 0:
            break
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    params.append(current)
    written = set()
    for param in params:
        match = _PARAMETER.match(param.strip())
        if match and "!" in match["type"]:
            written.add(match["name"])
    return frozenset(written)


def _fake(
    call: ast.Call, bound: _Bound, namespaces: dict[str, str], op_names: dict[str, str], found: Declarations
) -> None:
    target = _argument(call, 0, _TARGET[bound.what])
    text, owner = _text(target), bound.owner
    if text is not None:  # torch.library.register_fake("ns::op") / lib._register_fake("op", fn)
        found.fakes.add(text if "::" in text else f"{_namespace(owner, namespaces)}::{text}")
    elif isinstance(owner, ast.Name) and owner.id in op_names:
        found.fakes.add(op_names[owner.id])  # kv_write.register_fake(fn)
    elif isinstance(target, ast.Name) and target.id in op_names:
        found.fakes.add(op_names[target.id])  # torch.library.register_fake(kv_write)
    elif not isinstance(owner, ast.Name):
        found.computed.append(f"line {call.lineno}: a fake registered for an operator not named by a literal")
