"""judge.declarations: the literal operator declarations of a source, read with ast, held against the dispatcher."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge import declarations, flags

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
