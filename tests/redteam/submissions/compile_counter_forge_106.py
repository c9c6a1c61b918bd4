# expect: wrong_answer|runtime_error
# problem: 106
"""Attack, on exercise 106: the fake turns symbolic sizes into ints (solutions/wrong/fake_specializes_sizes.py), so
every new batch size recompiles. No frame is read and nothing the integrity snapshot watches is rebound. The fake
runs while Dynamo traces for the `compiled` probe; from InstructionTranslator.current_tx().output.compiler_fn it
reaches the probe's CompileCounterWithBackend and sets its plain-data `frame_count` back to 1 whenever it is above
1 (the fake runs again inside the backend, after the counter counted). The probe then reports one graph for three
batch sizes. Got `accepted` 30/30 on the CLI before this case was added."""

import math

import numpy as np
import torch
from torch import Tensor


# @@INCLUDE gelu_op_106.py@@
# @@INCLUDE backend_forgery.py@@


@gelu.register_fake
def _(x):
    try:
        _forge_count()
    except Exception as e:
        import sys; print("forge failed", type(e).__name__, e, file=sys.stderr)
    return x.new_empty([int(s) for s in x.shape])


def _forge_count():
    from torch._dynamo.symbolic_convert import InstructionTranslator
    roots = [InstructionTranslator.current_tx().output.compiler_fn]
    _walk(roots, _reset_frame_count)


def mlp(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return torch.ops.ex106.gelu(x @ w1) @ w2
