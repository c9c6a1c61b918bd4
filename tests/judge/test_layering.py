"""Dependencies point one way (web -> judge -> sandbox), importing the core stays light, and the import graph
of judge/, sandbox/ and web/, read with ast, has the same shape: no import runs back up (not even inside a
function), the library never reaches into its front ends (judge.cli, judge.batch, judge.image), the queue
(judge.queue) sits below the web service and `judge grade --queue`, and no modules import each other, directly
or around a circle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_judge_core_imports_no_web_framework_docker_or_torch():
    loaded = _modules_after("import judge, judge.cli, judge.service")
    assert not {"fastapi", "starlette", "docker", "web", "torch"} & loaded


def test_sandbox_imports_nothing_from_judge():
    loaded = _modules_after("import sandbox, sandbox.zygote")
    assert not {m for m in loaded if m == "judge" or m.startswith("judge.")}


ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("judge", "sandbox", "web")
FRONT_ENDS = ("judge.cli", "judge.batch", "judge.image")
NOT_CODE = ("web/static", "web/frontend")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not str(path.relative_to(ROOT)).startswith(NOT_CODE):
                found[module_name(path)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(name: str, path: Path, known: set[str]) -> dict[str, bool]:
    """{imported module of ours: whether it is imported when the module loads (not in a function or a
    TYPE_CHECKING block)}."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, bool] = {}

    def add(target: str, at_load: bool) -> None:
        while target and target not in known:  # `from judge.cli import render`: the module, else its package
            target = target.rpartition(".")[0]
        if target and target != name:
            found[target] = found.get(target, False) or at_load

    def visit(node: ast.AST, at_load: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, at_load)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base, at_load)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            elif isinstance(child, ast.If) and _type_checking(child):
                visit(child, False)
            else:
                visit(child, at_load)

    visit(tree, True)
    return found


GRAPH = {name: imports(name, path, set(sources())) for name, path in sources().items()}


def _top(module: str) -> str:
    return module.split(".")[0]


def _is_front_end(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FRONT_ENDS)


def test_the_scan_sees_the_tree():
    """The scan is not vacuous: it finds the modules and the arrows everyone knows are there."""
    assert {"judge.service", "judge.cli.terminal", "sandbox.zygote", "web.app"} <= GRAPH.keys()
    assert "judge.grading.passes" in GRAPH["judge.service"] and "sandbox.base" in GRAPH["judge.report.models"]
    assert "judge.cli.learner_io" in GRAPH["judge.cli.terminal"]


ORDER = {"sandbox": 0, "judge": 1, "web": 2}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_arrows_point_web_to_judge_to_sandbox(module: str):
    """No import runs back up, not even one inside a function: the queue that `judge grade --queue` and the web
    service share lives below both (judge.queue); `judge serve` reaches the web package only by the name its
    sub-command registry loads (judge.cli.subcommands.EXTENSIONS), never by an import of the judge's."""
    upward = [t for t in GRAPH[module] if ORDER[_top(t)] > ORDER[_top(module)]]
    assert not upward, f"{module} imports {upward}: arrows point web -> judge -> sandbox only"


def test_the_queue_is_below_its_front_ends():
    queue = {m for m in GRAPH if m == "judge.queue" or m.startswith("judge.queue.")}
    assert {"judge.queue.store", "judge.queue.worker", "judge.queue.dispatcher", "judge.queue.celery_app"} <= queue
    for module in queue:
        assert not [t for t in GRAPH[module] if _top(t) == "web" or _is_front_end(t)], module
    assert "judge.queue.grading" in GRAPH["judge.batch.command"]  # `judge grade --queue`, a downward arrow now
    assert "judge.queue.store" in GRAPH["web.service"]


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _top(m) == "judge" and not _is_front_end(m)))
def test_the_library_imports_no_front_end(module: str):
    reached = [t for t in GRAPH[module] if _is_front_end(t)]
    assert not reached, f"library module {module} imports the front end {reached}"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_circles_are_found_when_there_are_some():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def _package_edges(module: str) -> set[str]:
    """What loading a module loads: what it imports, and each package above those (its __init__ runs)."""
    targets = set()
    for target, at_load in GRAPH[module].items():
        if at_load:
            parts = target.split(".")
            targets |= {".".join(parts[:n]) for n in range(1, len(parts) + 1)} & GRAPH.keys()
    targets.discard(module)
    return {t for t in targets if not module.startswith(t + ".")}  # a package's own __init__ is no arrow back


def test_no_import_circle():
    graph = {module: _package_edges(module) for module in GRAPH}
    assert circles(graph) == []


def test_no_import_circle_even_through_imports_inside_functions():
    """An import inside a function closes a circle as surely as one at load (the queue's Celery app once imported
    its worker to run a task; the worker sets the task's runner instead)."""
    assert circles({module: set(GRAPH[module]) for module in GRAPH}) == []


# The judge's own map, lowest first: a module may import its own package and anything on a lower row, never a
# row above nor a neighbour on its own row. It is the order a submission passes through (docs/architecture.md,
# "Layout"): the wire and the report's vocabulary, a problem folder and the worker that runs beside it, the
# checker and the runners, one judgement's passes, the Judge, then the front ends.
JUDGE_MAP: tuple[tuple[str, ...], ...] = (
    ("judge.wire",),
    ("judge.report",),
    ("judge.errors", "judge.exits", "judge.settings", "judge.versions"),
    ("judge.extras", "judge.source", "judge.problem"),
    ("judge.worker", "judge.flags"),
    ("judge.checker", "judge.runners"),
    ("judge.grading",),
    ("judge.service",),
    ("judge.queue", "judge.image"),
    ("judge.batch",),
    ("judge.cli",),
)


def _row(module: str) -> tuple[int, str] | None:
    for number, row in enumerate(JUDGE_MAP):
        for part in row:
            if module == part or module.startswith(part + "."):
                return number, part
    return None


def test_every_judge_module_has_a_place_on_the_map():
    placed = {m for m in GRAPH if _top(m) == "judge" and m != "judge"}
    assert [m for m in sorted(placed) if _row(m) is None] == []
    root = sorted(m for m in placed if m.count(".") == 1 and not (ROOT / m.replace(".", "/")).is_dir())
    assert len(root) <= 12, f"judge/ holds {len(root)} modules at its root: {root}"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _top(m) == "judge" and m != "judge"))
def test_judge_imports_follow_the_map(module: str):
    """Even an import inside a function: the map is what may know of what, not what loads when."""
    here = _row(module)
    assert here is not None
    wrong = []
    for target in GRAPH[module]:
        there = _row(target)
        if _top(target) != "judge" or target == "judge" or there is None or there[1] == here[1]:
            continue
        if there[0] >= here[0]:
            wrong.append(target)
    assert not wrong, f"{module} (row {here[0]}, {here[1]}) imports {wrong}: up or across the map"


def test_the_map_is_not_vacuous():
    """A known arrow up is seen as one: the rows are compared, not only listed."""
    assert _row("judge.grading.passes")[0] > _row("judge.checker.plugin")[0] > _row("judge.report.models")[0]
    assert "judge.checker.events" in GRAPH["judge.grading.decide"]
