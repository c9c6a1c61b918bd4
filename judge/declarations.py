"""Operator declarations read from a submission's source with `ast` (never run): the checker's floor for them.

The worker reports what the dispatcher holds; a submission that forged that report would still have to write
its declaration somewhere. Where the source gives it as a literal (`custom_op("ns::op", mutates_args=(...))`,
`Library.define("op(Tensor(a!) x) -> ()")`, `torch.library.define("ns::op", "(...) -> ...")`), the literal
must agree with the dispatcher, or the case fails: a forger must write the right declaration, which is the
lesson itself. A declaration that is computed (a name, a call, an f-string) rejects nothing; it is only flagged
for instructors (`computed`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from judge.feedback import msg

REGISTERS = ("register_fake", "impl_abstract", "_register_fake")


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

    def of(self, qualified: str) -> list[Declaration]:
        name = qualified.partition("::")[2]
        return [d for d in self.literal if d.qualified in (qualified, f"?::{name}")]

    def check(self, qualified: str, written: set[str] | frozenset[str]) -> None:
        """Fail (AssertionError, both languages) if a literal declaration of `qualified` disagrees with the
        arguments the dispatcher reports as written. No literal declaration: nothing to hold it to."""
        for found in self.of(qualified):
            if found.writes != frozenset(written):
                said, seen = _names(found.writes), _names(written)
                raise AssertionError(
                    msg(
                        f"第 {found.line} 行声明 {qualified} 修改 {said}（{found.how}），"
                        f"但判题进程里的分发器报告它修改 {seen}：两者必须一致",
                        f"line {found.line} declares that {qualified} writes {said} ({found.how}), but the "
                        f"dispatcher in the judge's worker reports {seen}: they must agree",
                    )
                )

    def has_fake(self, qualified: str) -> bool | None:
        """Whether the source registers a fake for `qualified` (None: a registration it cannot name)."""
        name = qualified.partition("::")[2]
        if qualified in self.fakes or f"?::{name}" in self.fakes:
            return True
        return None if any("fake" in what for what in self.computed) else False


def _names(names: set[str] | frozenset[str]) -> str:
    return "(" + ", ".join(sorted(names)) + ")" if names else "()"


def read(source: str) -> Declarations:
    """The declarations in `source`; an unparsable file has none (the import reports the syntax error)."""
    found = Declarations()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return found
    namespaces = _library_namespaces(tree)
    op_names: dict[str, str] = {}  # the Python name a custom_op is bound to -> its qualified name
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and _called(decorator) == "custom_op":
                    qualified = _custom_op(decorator, found)
                    if qualified:
                        op_names[node.name] = qualified
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _called(node.value) == "custom_op":
            qualified = _custom_op(node.value, found)
            for target in node.targets:
                if qualified and isinstance(target, ast.Name):
                    op_names[target.id] = qualified
    for decorator in _decorators(tree):  # @kv_write.register_fake (no call)
        if isinstance(decorator, ast.Attribute) and decorator.attr in REGISTERS:
            owner = decorator.value
            if isinstance(owner, ast.Name) and owner.id in op_names:
                found.fakes.add(op_names[owner.id])
    seen = {id(d) for d in _decorators(tree)} | {
        id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _called(node)
        if called == "define":
            _define(node, namespaces, found)
        elif called in REGISTERS:
            _fake(node, namespaces, op_names, found)
        elif called == "custom_op" and id(node) not in seen:  # torch.library.custom_op("ns::op", fn, ...)
            _custom_op(node, found)
    return found


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _decorators(tree: ast.AST) -> list[ast.expr]:
    functions = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return [d for n in functions for d in n.decorator_list]


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[position] if len(call.args) > position else None


def _custom_op(call: ast.Call, found: Declarations) -> str | None:
    qualified = _text(_argument(call, 0, "name"))
    if qualified is None or "::" not in qualified:
        found.computed.append(f"line {call.lineno}: custom_op with a name that is not a literal")
        return None
    value = _argument(call, 99, "mutates_args")
    if value is None and not any(kw.arg is None for kw in call.keywords):
        return qualified  # no mutates_args at all (torch refuses that at import): there is nothing to compare
    writes = _literal_names(value)
    if _text(value) == "unknown":
        return qualified  # a literal too, which declares nothing precise: the dispatcher's reading stands alone
    if writes is None:
        found.computed.append(f"line {call.lineno}: mutates_args of {qualified} is not a literal")
    else:
        found.literal.append(Declaration(qualified, writes, call.lineno, "mutates_args"))
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


def _library_namespaces(tree: ast.AST) -> dict[str, str]:
    """`lib = torch.library.Library("ns", "DEF")` -> {"lib": "ns"} (literal namespaces only)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _called(node.value) == "Library":
            namespace = _text(_argument(node.value, 0, "ns"))
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = namespace or "?"
    return names


def _owner_namespace(call: ast.Call, namespaces: dict[str, str]) -> str:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return namespaces.get(func.value.id, "?")
    return "?"


def _define(call: ast.Call, namespaces: dict[str, str], found: Declarations) -> None:
    first, second = _text(_argument(call, 0, "qualname")), _argument(call, 1, "schema")
    if first is not None and "::" in first and second is not None:  # torch.library.define("ns::op", "(...) -> ...")
        schema = _text(second)
        qualified = first
        if schema is None:
            found.computed.append(f"line {call.lineno}: the schema of {qualified} is not a literal")
            return
        found.literal.append(Declaration(qualified, written_in(schema), call.lineno, "schema"))
        return
    schema = _text(_argument(call, 0, "schema"))
    if schema is None or "(" not in schema:
        found.computed.append(f"line {call.lineno}: a schema that is not a literal")
        return
    name = schema.split("(", 1)[0].strip().split(".", 1)[0]
    qualified = name if "::" in name else f"{_owner_namespace(call, namespaces)}::{name}"
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


def _fake(call: ast.Call, namespaces: dict[str, str], op_names: dict[str, str], found: Declarations) -> None:
    func = call.func
    target = _text(_argument(call, 0, "op"))
    if target is not None:  # torch.library.register_fake("ns::op") / lib._register_fake("op", fn)
        found.fakes.add(target if "::" in target else f"{_owner_namespace(call, namespaces)}::{target}")
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in op_names:
        found.fakes.add(op_names[func.value.id])  # @kv_write.register_fake
    elif not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        found.computed.append(f"line {call.lineno}: a fake registered for an operator not named by a literal")
