"""torch's own checks as the oracle: each variant of tests/oracle/variants.py is judged, and torch.library.opcheck and
torch.autograd.gradcheck run on it here, in this trusted test process, on inputs of the same shapes and dtypes as the
judge's cases. Facet by facet (each opcheck's first failing test, gradcheck's pass or fail) and verdict by verdict
(accepted only where torch finds nothing), the two must agree, except where the judge is deliberately stricter:
DELIBERATE lists each such place with its reason, and a listed place that no longer disagrees fails too (the list
stays true).

opcheck runs as the judge runs it (judge.worker.opobserve): test_schema on inputs that do not require grad, the other
three on inputs that do. Each variant's operators live in a namespace of their own here, so every variant's ops can
be registered in one process.
"""

from __future__ import annotations

import itertools
import re
import types

import pytest
import torch

from judge.report.models import Verdict
from tests.oracle.variants import VARIANTS, source

pytestmark = pytest.mark.slow

OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
# The judge's cases that carry each facet: (case name, hidden) per problem and facet.
CASES = {
    "100": {
        "opcheck(kv_write)": ("test_kv_write_opcheck", False),
        "opcheck(rms_norm)": ("test_rms_norm_opcheck", False),
        "gradcheck(rms_norm)": ("test_rms_norm_gradcheck_float64", False),
    },
    "103": {
        "opcheck(silu_and_mul)": ("test_opcheck", False),
        "gradcheck(silu_and_mul)": ("test_gradcheck_float64", True),
    },
}
OPCHECK_FAILED = re.compile(r"opcheck(?:\(\w+\): |'s )(test_\w+) failed")
VERDICT = "verdict"
# (problem, variant, facet) -> why the judge is stricter than torch there. A write that puts the values back (or
# changes them by a rounding error) is a write: the schema says the operator writes nothing, and torch's
# SchemaCheckMode compares values only, with a tolerance. 103's statement asks for a contiguous output; torch's
# checks compare the fake with the kernel, never with the statement.
RESTORED = "a write that puts the values back is still a write the schema does not declare (torch compares values)"
DELIBERATE = {
    ("100", "rms_forward_restores_input", "opcheck(rms_norm)"): RESTORED,
    ("100", "kv_restores_slots", "opcheck(kv_write)"): RESTORED,
    ("100", "kv_writes_k", "opcheck(kv_write)"): RESTORED + "; here the values even differ by a rounding error",
    ("103", "forward_restores_input", "opcheck(silu_and_mul)"): RESTORED,
    ("103", "output_strided_with_matching_fake", VERDICT): "the statement asks for a contiguous output at offset 0",
}
_names = itertools.count()


def _ops(problem: str, text: str) -> types.SimpleNamespace:
    """The variant's operators, registered under a namespace of their own in this process."""
    namespace = f"oracle{problem}n{next(_names)}"
    module = types.ModuleType(namespace)
    exec(compile(text.replace(f"ex{problem}::", f"{namespace}::"), f"{namespace}.py", "exec"), vars(module))
    return getattr(torch.ops, namespace)


def _first_failure(results: dict) -> str | None:
    return next((test for test in OPCHECK_TESTS if test in results and results[test] != "SUCCESS"), None)


def _opcheck(op, plain: tuple, with_grad: tuple | None) -> str | None:
    """opcheck's first failing test, test_schema on `plain`, the others on `with_grad`."""
    results = torch.library.opcheck(op, plain, test_utils=("test_schema",), raise_exception=False)
    if with_grad is not None:
        others = OPCHECK_TESTS[1:]
        results.update(torch.library.opcheck(op, with_grad, test_utils=others, raise_exception=False))
    return _first_failure(results)


def _gradcheck(fn, inputs: tuple) -> bool:
    try:
        return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=True))
    except Exception:  # noqa: BLE001 - any failure of the variant's backward is gradcheck failing
        return False


def _leaves(*tensors: torch.Tensor) -> tuple:
    return tuple(t.detach().clone().requires_grad_(True) for t in tensors)


def torch_facets(problem: str, text: str) -> dict[str, str | bool | None]:
    g = torch.Generator().manual_seed(11)
    ops = _ops(problem, text)
    f64 = torch.float64
    if problem == "100":
        caches = [torch.randn(8, 2, 2, generator=g, dtype=f64) for _ in range(2)]
        slots = torch.randperm(8, generator=g)[:3]
        rows = [torch.randn(3, 2, 2, generator=g, dtype=f64) for _ in range(2)]
        x, w = torch.randn(2, 6, generator=g, dtype=f64), 1 + 0.5 * torch.randn(6, generator=g, dtype=f64)
        gx, gw = torch.randn(2, 5, generator=g, dtype=f64), 1 + 0.5 * torch.randn(5, generator=g, dtype=f64)
        kv, rms = ops.kv_write.default, ops.rms_norm.default
        return {
            "opcheck(kv_write)": _opcheck(kv, (*caches, slots, *rows), None),
            "opcheck(rms_norm)": _opcheck(rms, (x, w, 1e-2), (*_leaves(x, w), 1e-2)),
            "gradcheck(rms_norm)": _gradcheck(lambda a, b: rms(a, b, 0.1), _leaves(gx, gw)),
        }
    x, gx = torch.randn(3, 8, generator=g, dtype=f64), torch.randn(2, 6, generator=g, dtype=f64)
    op = ops.silu_and_mul.default
    return {
        "opcheck(silu_and_mul)": _opcheck(op, (x,), _leaves(x)),
        "gradcheck(silu_and_mul)": _gradcheck(op, _leaves(gx)),
    }


def judge_facets(problem: str, report) -> dict[str, str | bool | None]:
    found: dict[str, str | bool | None] = {}
    for facet, (name, hidden) in CASES[problem].items():
        case = next(c for c in report.cases if c.name == name and c.hidden == hidden)
        if facet.startswith("gradcheck"):
            found[facet] = case.outcome.value == "passed"
        elif case.outcome.value == "passed":
            found[facet] = None
        else:
            failed = OPCHECK_FAILED.search(case.message.en)
            found[facet] = failed.group(1) if failed else f"case failed otherwise: {case.message.en[:200]}"
    return found


CORPUS = [(problem, name, what, patches) for problem, variants in VARIANTS.items() for name, what, patches in variants]


def test_the_corpus_is_half_wrong_in_ways_torch_catches():
    caught = [
        name
        for problem, name, _, patches in CORPUS
        if any(torch_facets(problem, source(problem, patches)).get(f) not in (None, True) for f in CASES[problem])
    ]
    assert len(caught) * 2 >= len(CORPUS), caught


@pytest.mark.parametrize("problem,name,what,patches", CORPUS, ids=[f"{p}:{n}" for p, n, _, _ in CORPUS])
def test_the_judge_agrees_with_torchs_checks(judge, problem, name, what, patches):
    text = source(problem, patches)
    theirs = torch_facets(problem, text)
    report = judge.grade(problem, text, mode="submit")
    ours = judge_facets(problem, report)
    torch_clean = all(v is None or v is True for v in theirs.values())
    accepted = report.verdict == Verdict.accepted
    disagreements = {facet for facet in theirs if theirs[facet] != ours[facet]}
    listed = {facet for (p, n, facet) in DELIBERATE if (p, n) == (problem, name)}
    if torch_clean != accepted and not (disagreements and disagreements <= listed):  # else the listed facets say why
        disagreements.add(VERDICT)
    assert disagreements == listed, (
        f"{problem}:{name} ({what}): torch {theirs}, judge {ours}, verdict {report.verdict.value}; "
        f"unlisted {sorted(disagreements - listed)}, listed but agreeing {sorted(listed - disagreements)}"
    )
