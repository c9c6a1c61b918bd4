"""Exercise 105, public tests: one case for each lesson of the hidden checks (what "Run" / --public runs).

dispatch_keys: the checker describes a tensor, probes.make_tensor builds it on both sides, and
the expected names come from torch._C._dispatch_keys here. scaled_dot: reached only through
torch.ops.ex105.scaled_dot, compared with a float64 computation of (a * b).sum(-1) * scale.
The autocast rule is checked where the chapter puts it: a kernel at the AutocastCPU key, seen by
fake tensors and torch.compile, not only the dtype of an eager call.
"""

import pytest
import torch

F32, BF16 = torch.float32, torch.bfloat16

KEY_CASES = [
    ("chapter-cpu-float32", {"shape": [3]}),
    ("requires-grad", {"shape": [2, 3], "requires_grad": True}),
    ("meta-device", {"shape": [2, 3], "device": "meta"}),
    ("inference-mode", {"shape": [2, 3], "inference": True}),
    ("conj-view", {"shape": [4], "dtype": "complex64", "view": "conj"}),
]


@pytest.mark.parametrize("desc", [c[1] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
@pytest.mark.weight(3)
def test_dispatch_keys(probe, ex, desc):
    obs = probe("dispatch_keys", desc, hint=ex.hints["dispatch_keys"])
    ex.check_keys(obs, desc, "plain", ex.tensor_label(desc))


def test_scaled_dot_schema(probe, ex):
    ex.check_schema(probe("op_schema", hint=ex.hints["op_schema"]))


def test_scaled_dot_eager_float32(probe, ex, check_values):
    a, b = ex.make_pair(1, (4, 5, 16))
    obs = probe("scaled_dot", a, b, 0.25, hint=ex.hints["scaled_dot"])
    check_values(obs, a, b, 0.25, F32, ("float32 输入、不开 autocast", "float32 inputs, outside autocast"))


def test_scaled_dot_on_meta_tensors(probe, ex):
    ex.check_meta(probe("scaled_dot_meta", [2, 7, 32], F32, 1.0, hint=ex.hints["meta"]), [2, 7, 32], F32)


def test_scaled_dot_under_autocast_computes_in_bfloat16(probe, ex, check_values):
    a, b = ex.make_pair(2, (3, 64))
    obs = probe("scaled_dot", a, b, 0.5, autocast=True, hint=ex.hints["autocast"])
    label = ("autocast（bf16）下 float32 输入", "float32 inputs under autocast (bf16)")
    ex.check_autocast_dtype(obs, label, F32, BF16)
    check_values(obs, a, b, 0.5, BF16, label)


@pytest.mark.weight(5)
def test_autocast_rule_is_registered_at_autocast_cpu(probe, ex):
    ex.check_autocast_kernel(probe("op_schema", hint=ex.hints["op_schema"]))


@pytest.mark.weight(19)
def test_fake_tensor_under_autocast_gives_bfloat16(probe, ex):
    a, b = ex.make_pair(4, (2, 6, 16))
    obs = probe("scaled_dot_fake", a, b, 1.0, autocast=True, hint=ex.hints["fake"])
    ex.check_fake(obs, [2, 6], BF16, autocast=True)


@pytest.mark.weight(19)
def test_scaled_dot_compiled_under_autocast(probe, ex, check_values):
    a, b = ex.make_pair(5, (3, 24))
    obs = probe("scaled_dot_compiled_autocast", a, b, 0.5, hint=ex.hints["compiled"])
    ex.check_compiled(obs, a, b, 0.5, check_values)


def test_scaled_dot_opcheck(probe, ex):
    a, b = ex.make_pair(3, (3, 8))
    result = probe("scaled_dot_opcheck", a, b, 2.0, hint=ex.hints["opcheck"])
    ex.check_opcheck(result, ("opcheck(scaled_dot)", "opcheck(scaled_dot)"), (a, b, 2.0))
