"""judge.problem.declarations: a source's literal operator declarations, read with ast, held against the dispatcher."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge import flags
from judge.problem import declarations

REPO = Path(__file__).resolve().parents[2]

CUSTOM_OP = """
import torch
from torch.library import custom_op

@torch.library.custom_op("ex100::kv_write", mutates_args=("k_cache", "v_cache"))
def kv_write(k_cache, v_cache, slots, k, v) -> None: ...

@kv_write.register_fake
def _(k_cache, v_cache, slots, k, v): return None

rms = custom_op("ex100::rms_norm", lambda x: x, mutates_args=())
"""

LIBRARY = """
import torch
lib = torch.library.Library("ex106", "DEF")
lib.define("gelu(Tensor x) -> Tensor")
lib.define("scale_(Tensor(a!) x, float s) -> ()")
torch.library.define("ex106::other", "(Tensor(a!) out, Tensor(b!)? extra, Tensor x, int[2] size=[1, 2]) -> ()")
torch.library.register_fake("ex106::gelu")(lambda x: x)
"""

COMPUTED = """
import torch
NAMES = ("k_cache",) + ("v_cache",)
@torch.library.custom_op("ex100::kv_write", mutates_args=NAMES)
def kv_write(k_cache, v_cache, slots, k, v) -> None: ...
lib = torch.library.Library("ex100", "FRAGMENT")
lib.define("rms_norm" + "(Tensor x) -> Tensor")
"""


def test_literal_custom_op_declarations_and_fakes():
    found = declarations.read(CUSTOM_OP)
    assert {(d.qualified, d.writes) for d in found.literal} == {
        ("ex100::kv_write", frozenset({"k_cache", "v_cache"})),
        ("ex100::rms_norm", frozenset()),
    }
    assert not found.computed and found.has_fake("ex100::kv_write") and not found.has_fake("ex100::rms_norm")


def test_literal_schemas_through_library_define():
    found = declarations.read(LIBRARY)
    assert {(d.qualified, d.writes) for d in found.literal} == {
        ("ex106::gelu", frozenset()),
        ("ex106::scale_", frozenset({"x"})),
        ("ex106::other", frozenset({"out", "extra"})),
    }
    assert found.has_fake("ex106::gelu") and not found.computed


def test_a_literal_that_disagrees_with_the_dispatcher_fails_the_case():
    """The forged accept: mutates_args=() in the file, a dispatcher reading that says the caches are
    written (forged, or real): the literal is what the learner wrote, and it must agree."""
    found = declarations.read(CUSTOM_OP.replace('("k_cache", "v_cache")', "()"))
    with pytest.raises(AssertionError, match="line 5 declares that ex100::kv_write writes"):
        found.check("ex100::kv_write", {"k_cache", "v_cache"})
    declarations.read(CUSTOM_OP).check("ex100::kv_write", {"k_cache", "v_cache"})  # agrees: nothing raised


def test_computed_declarations_reject_nothing_and_are_flagged():
    found = declarations.read(COMPUTED)
    assert found.literal == [] and len(found.computed) == 2
    found.check("ex100::kv_write", set())  # nothing literal to hold the dispatcher to
    assert "computed-declaration" in flags.source_flags(COMPUTED)
    assert "computed-declaration" not in flags.source_flags(CUSTOM_OP)


def test_unparsable_source_declares_nothing():
    assert declarations.read("def (:\n").literal == []


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for problem in ("100-custom-op", "103-silu-and-mul", "106-graph-breaks", "107-triton-silu-and-mul")
        for p in (REPO / "problems" / problem / "solutions").glob("**/*.py")
        if "wrong" not in p.parts
    ),
    ids=lambda p: f"{p.parents[1].name if p.parent.name == 'valid' else p.parent.parent.name}/{p.name}",
)
def test_every_shipped_valid_solution_declares_literally(path):
    """Every registration route the shipped solutions use (custom_op, Library.define, torch.library.define) is
    read as a literal: the floor holds them, and none of them is flagged."""
    found = declarations.read(path.read_text(encoding="utf-8"))
    assert found.literal and not found.computed, (found.literal, found.computed)


# --- Aliased declaring functions: the forged accept (mutates_args=() in the file, a dispatcher reading that says
# the caches are written) must be caught whatever name the declaring function is called by.
KV = "def kv_write(k_cache, v_cache, slots, k, v) -> None: ...\n"
KV_SCHEMA = "(Tensor k_cache, Tensor v_cache, Tensor slots, Tensor k, Tensor v) -> ()"
NONE = '("ex100::kv_write", mutates_args=())'  # the forged declaration: nothing written
ALIASED = {
    "from-import-as": f"from torch.library import custom_op as co\n@co{NONE}\n{KV}",
    "assigned": f"import torch\nco = torch.library.custom_op\n@co{NONE}\n{KV}",
    "annotated": f"import torch\nco: object = torch.library.custom_op\n@co{NONE}\n{KV}",
    "chained": f"from torch.library import custom_op\na = custom_op\nco = a\n@co{NONE.replace('()', '[]')}\n{KV}",
    "tuple": f"import torch\nco, rf = torch.library.custom_op, torch.library.register_fake\n@co{NONE}\n{KV}",
    "module-alias": f"from torch import library as L\nco = L.custom_op\n@co{NONE}\n{KV}",
    "getattr-bound": f'import torch\nf = getattr(torch.library, "custom_op")\n@f{NONE}\n{KV}',
    "getattr-called": f'import torch\n{KV}op = getattr(torch.library, "custom_op"){NONE}(kv_write)\n',
    "walrus": f"import torch\nif (co := torch.library.custom_op):\n    @co{NONE}\n    {KV}",
    "triton_op": f"import torch\n@torch.library.triton_op{NONE}\n{KV}",
    "library-alias": (
        f'from torch.library import Library as L\nlib = L("ex100", "DEF")\nd = lib.define\nd("kv_write{KV_SCHEMA}")\n'
    ),
    "define-with-library": (
        'import torch\nlib = torch.library.Library("ex100", "FRAGMENT")\n'
        f'torch.library.define(lib, "kv_write{KV_SCHEMA}")\n'
    ),
    "define-assigned": f'import torch\ndefine = torch.library.define\ndefine("ex100::kv_write", "{KV_SCHEMA}")\n',
    "define-getattr": f'import torch\ngetattr(torch.library, "define")("ex100::kv_write.default", "{KV_SCHEMA}")\n',
}


@pytest.mark.parametrize("source", ALIASED.values(), ids=ALIASED.keys())
def test_an_aliased_declaring_function_is_read_as_a_literal(source):
    found = declarations.read(source)
    assert [(d.qualified, d.writes) for d in found.literal] == [("ex100::kv_write", frozenset())], found
    with pytest.raises(AssertionError, match="ex100::kv_write writes"):
        found.check("ex100::kv_write", {"k_cache", "v_cache"})
    assert not found.unread


ALIASED_FAKES = {
    "assigned": 'import torch\nrf = torch.library.register_fake\n@rf("ex100::kv_write")\ndef _(*a): ...\n',
    "from-import-as": 'from torch.library import impl_abstract as ia\nia("ex100::kv_write")(lambda *a: None)\n',
    "getattr": 'import torch\ngetattr(torch.library, "register_fake")("ex100::kv_write")(lambda *a: None)\n',
    "op-handle": (
        f'import torch\n@torch.library.custom_op("ex100::kv_write", mutates_args=())\n{KV}'
        "torch.library.register_fake(kv_write)(lambda *a: None)\n"
    ),
    "library-method-alias": 'import torch\nlib = torch.library.Library("ex100", "FRAGMENT")\n'
    'reg = lib._register_fake\nreg("kv_write", lambda *a: None)\n',
}


@pytest.mark.parametrize("source", ALIASED_FAKES.values(), ids=ALIASED_FAKES.keys())
def test_an_aliased_fake_registration_is_read(source):
    assert declarations.read(source).has_fake("ex100::kv_write") is True


# --- The fail-safe: an operator the dispatcher reports that no literal declares (exec, a computed getattr, C++,
# mutates_args="unknown") rejects nothing, but is never skipped silently: the checker flags it.
UNREAD = {
    "exec": f"import torch\nexec('@torch.library.custom_op{NONE}\\n{KV.strip()}')\n",
    "computed-getattr": f'import torch\n{KV}getattr(torch.library, "custom" + "_op"){NONE}(kv_write)\n',
    "c++": 'from torch.utils import cpp_extension as c\nc.load_inline("m", "TORCH_LIBRARY(ex100, m) {}")\n',
    "unknown": f'import torch\n@torch.library.custom_op("ex100::kv_write", mutates_args="unknown")\n{KV}',
    "other-namespace": f'import torch\n@torch.library.custom_op("ex999::kv_write", mutates_args=())\n{KV}',
}


@pytest.mark.parametrize("source", UNREAD.values(), ids=UNREAD.keys())
def test_an_operator_no_literal_declares_is_recorded_when_checked(source):
    found = declarations.read(source)
    found.check("ex100::kv_write", {"k_cache", "v_cache"})  # nothing literal to hold the dispatcher to
    assert found.unread == {"ex100::kv_write"}


def test_a_literal_declaration_held_to_the_dispatcher_is_not_recorded():
    found = declarations.read(CUSTOM_OP)
    found.check("ex100::kv_write", {"k_cache", "v_cache"})
    found.check("ex100::rms_norm", set())
    assert not found.unread


def test_an_unread_operator_reaches_the_report_as_a_computed_declaration():
    """checker (the declarations plugin) -> event -> relay -> checker log (merged across passes) -> report."""
    import socket

    from judge.checker.declared import DeclarationsPlugin
    from judge.checker.events import CollectedCase, EventWriter, Finished
    from judge.grading.decide import CheckerLog, decide
    from judge.grading.passes import merge
    from judge.grading.relay import Relay
    from judge.report.models import CaseResult, Outcome
    from sandbox.base import JobFacts

    def one_pass(source: str, op: str, case: str = "case") -> CheckerLog:
        reader, writer = socket.socketpair()
        plugin = DeclarationsPlugin(source, EventWriter(writer))
        plugin.declarations_of_the_source().check(op, {"k_cache", "v_cache"})
        plugin.pytest_runtest_logfinish("t.py::case", ("t.py", 1, "case"))
        plugin.pytest_runtest_logfinish("t.py::again", ("t.py", 2, "again"))
        EventWriter(writer).send(Finished(exit_code=0))
        writer.close()
        log = Relay(lambda event: None).read(reader)
        reader.close()
        log.collected = [CollectedCase(id=f"t.py::{case}", name=case, hidden=False)]
        log.finished = {f"t.py::{case}": CaseResult(name=case, outcome=Outcome.passed)}
        return log

    unread = one_pass(UNREAD["exec"], "ex100::kv_write")
    assert unread.flags == {"computed-declaration"}
    assert one_pass(CUSTOM_OP, "ex100::kv_write").flags == set()
    passes = [(one_pass(CUSTOM_OP, "ex100::kv_write", "cpu"), JobFacts(exit_code=0)), (unread, JobFacts(exit_code=0))]
    log, facts = merge(passes)
    report = decide("100", "submit", log, facts, {"memory": 1, "wall": 1, "output": 1})
    assert report.verdict == "accepted" and report.flags == ["computed-declaration"]  # flagged, never rejected


EXERCISE_OPS = {
    "100-custom-op": ("ex100::kv_write", "ex100::rms_norm"),
    "103-silu-and-mul": ("ex103::silu_and_mul",),
    "106-graph-breaks": ("ex106::gelu",),
    "107-triton-silu-and-mul": ("ex107::silu_and_mul_out", "ex107::silu_and_mul"),
}


@pytest.mark.parametrize(
    "problem, path",
    sorted(
        (problem, p)
        for problem in EXERCISE_OPS
        for p in (REPO / "problems" / problem / "solutions").glob("**/*.py")
        if "wrong" not in p.parts
    ),
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_every_shipped_valid_solution_declares_each_operator_of_its_exercise_literally(problem, path):
    """The fail-safe never flags a shipped valid solution: each operator its exercise asks the dispatcher about
    has a literal declaration in the file."""
    found = declarations.read(path.read_text(encoding="utf-8"))
    for op in EXERCISE_OPS[problem]:
        assert found.of(op), (op, found.literal)
